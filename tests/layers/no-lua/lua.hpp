/* Put first on the include path of the engine below engine/lua/ (tests/layers/,
 * Makefile: Layers the compiler enforces). */
#error "the engine below engine/lua/ includes a Lua header"
