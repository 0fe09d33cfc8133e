/* model_auto: the automatic values of a setup that the model settles
 * before the setup is checked (docs/MODEL.md section 4, "tensor_parallel:
 * auto").
 *
 * training.tensor_parallel: auto is the smallest power of two, from 1 up
 * to the scale-up domain (setup_scaleup_domain: the devices on one
 * NVLink/ICI fabric), at which the setup resolves and the memory per device
 * (weights, gradients, optimizer state, activations and the reserve, as
 * model_memory counts them) fits the device, every other field as given.
 * Tensor parallelism past the scale-up domain crosses the slow network on
 * every layer (Narayanan et al. 2021, section 3.3: keep TP within a
 * node), and the smallest fitting degree leaves the most devices to data
 * parallelism, so the first fitting power of two is the choice. */
#include <stdio.h>
#include <string.h>

#include "model.h"

bool model_settle_auto(struct setup *s, const struct catalog *cat, char *err, size_t err_len)
{
    if (s->training.tensor_parallel != 0)
        return true;
    int domain = setup_scaleup_domain(s);
    char why[512] = "";
    for (int tp = 1; tp <= domain && tp <= 4096; tp *= 2) {
        s->training.tensor_parallel = tp;
        struct resolved r;
        char msg[512];
        if (!setup_resolve(s, cat, &r, msg, sizeof msg)) {
            snprintf(why, sizeof why, "at %d: %.400s", tp, msg);
            continue;
        }
        struct memory_report m;
        model_memory(s, &r, &m);
        if (m.fits)
            return true;
        snprintf(why, sizeof why, "at %d, %.1f GB per device of %.1f GB", tp, m.per_device_gb,
                 m.capacity_gb);
    }
    s->training.tensor_parallel = 0;
    snprintf(err, err_len,
             "training.tensor_parallel: auto finds no power of two up to the scale-up domain of "
             "%d devices at which the memory per device fits (%s); set it, or shard more "
             "(training.zero_stage, pipeline_parallel)",
             domain, why[0] ? why : "none tried");
    return false;
}
