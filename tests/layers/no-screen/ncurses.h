/* Put first on the include path of the layers that may not draw (tests/layers/,
 * Makefile: Layers the compiler enforces). */
#error "a layer below the screen (tui/, tui/views/) includes a curses header"
