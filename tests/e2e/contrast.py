"""Contrast of the figures on captured screens (issue 22), for
tests/e2e/screens.sh.

A screen is a tmux `capture-pane -e -p` dump. Its figures are found as
tui/draw.h defines them: a word (a run of printable ASCII between other
characters) with a digit in it, with up to two unit words after it, one
space apart. Two measures:
  - palette: the WCAG contrast of each figure cell's colours in the xterm-256
    palette, on white paper (the terminal's ink taken as black) and on black
    paper (ink white);
  - png: the capture rendered on white paper the way
    /work/shared/tools/screenshot.sh renders (aha for the colours, headless
    Chromium, DejaVu Sans Mono at 14 px), and the contrast measured in each
    figure cell between its background and its most contrasting pixel, so a
    thin glyph whose antialiased strokes never reach their ink counts as it
    looks. Where aha or Chromium is missing (CI) but Python's PIL and DejaVu
    Sans Mono are there, PIL renders it instead: FreeType's antialiased
    glyphs of the same font and size, one to a cell of the screenshot tool's
    9 x 15 px; CONTRAST_RENDERER=pil or chromium picks one.
"""
import math
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

CUBE = [0, 95, 135, 175, 215, 255]
BASIC = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
         (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
         (255, 0, 255), (0, 255, 255), (255, 255, 255)]
WHITE, BLACK = (255, 255, 255), (0, 0, 0)


def rgb(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        return (CUBE[n // 36], CUBE[n // 6 % 6], CUBE[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def lum(c):
    def f(x):
        x /= 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])


def ratio(a, b):
    la, lb = lum(a), lum(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def cells(text):
    """(row, col, char, fg, bg, reverse) per cell of a capture (fg, bg: xterm
    colour numbers, None for the terminal's own). Attributes carry on from
    one row to the next, as the dump writes them only where they change."""
    fg = bg = None
    rev = False
    for row, line in enumerate(text.split("\n")):
        col = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b\][^\x07]*\x07|([^\x1b])", line):
            if m.group(2) is not None:
                yield row, col, m.group(2), fg, bg, rev
                col += 1
                continue
            if m.group(1) is None:
                continue
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg = bg = None
                    rev = False
                elif c == 7:
                    rev = True
                elif c == 27:
                    rev = False
                elif c == 39:
                    fg = None
                elif c == 49:
                    bg = None
                elif 30 <= c <= 37:
                    fg = c - 30
                elif 90 <= c <= 97:
                    fg = c - 82
                elif 40 <= c <= 47:
                    bg = c - 40
                elif 100 <= c <= 107:
                    bg = c - 92
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    if c == 38:
                        fg = codes[i + 2]
                    else:
                        bg = codes[i + 2]
                    i += 2
                i += 1


UNITS = ("k M G T P E us ms s min h d y days C B KB MB GB TB PB KiB MiB GiB TiB W kW MW GW Wh kWh "
         "MWh GWh FLOP GFLOP TFLOP PFLOP tokens samples steps stops USD").split()
UNIT = r"(?:%s)(?:/[!-~]*)?[,;:.)]*" % "|".join(re.escape(u) for u in UNITS)
FIGURE = re.compile(r"(?<![!-~])[!-~]*[0-9][!-~]*(?: %s(?![!-~])){0,2}" % UNIT)


def figure_cells(text):
    """{(row, col)} of the figures of a capture (its text, escapes removed)."""
    plain = re.sub(r"\x1b\[[0-9;]*m|\x1b\][^\x07]*\x07", "", text)
    out = set()
    for row, line in enumerate(plain.split("\n")):
        for m in FIGURE.finditer(line):
            out.update((row, c) for c in range(m.start(), m.end()))
    return out


def palette_low(text, least):
    """The figure cells of a capture below `least`:1 on white or black paper:
    [(row, col, ratio, paper name)]."""
    fig = figure_cells(text)
    low = []
    for row, col, ch, fg, bg, rev in cells(text):
        if (row, col) not in fig or ch == " ":
            continue
        for paper, ink, name in ((WHITE, BLACK, "white"), (BLACK, WHITE, "black")):
            f = rgb(fg) if fg is not None else ink
            b = rgb(bg) if bg is not None else paper
            r = ratio(f, b)
            if r < least:
                low.append((row, col, r, name, fg, bg))
    return low


# The screenshot tool's rendering: DejaVu Sans Mono, 14 px; one row is
# given 16 px here so that rows start on whole pixels.
FONT_PX, ROW_PX, ADVANCE_EM = 14, 16, 1233 / 2048


def render(paths, cols, rows, out):
    """Render the captures one under another on white paper to the PNG
    `out`; an error text, or None."""
    if not shutil.which("aha") or not shutil.which("chromium") or not shutil.which("fc-list"):
        return "no aha, chromium or fc-list (apt-get install aha chromium fontconfig)"
    fonts = subprocess.run(["fc-list", ":family=DejaVu Sans Mono"], capture_output=True, timeout=60).stdout
    if not fonts.strip():
        return "no DejaVu Sans Mono, whose cell width the measure assumes (apt-get install fonts-dejavu-core)"
    tmp = tempfile.mkdtemp()
    try:
        parts = ['<html><head><meta charset="utf-8"><style>body{margin:0;background:#fff;color:#000}'
                 'pre{font-family:"DejaVu Sans Mono";font-size:%dpx;line-height:%dpx;margin:0;'
                 'height:%dpx;overflow:hidden}</style></head><body>' % (FONT_PX, ROW_PX, rows * ROW_PX)]
        for p in paths:
            with open(p, "rb") as f:
                body = subprocess.run(["aha", "--no-header"], stdin=f, capture_output=True,
                                      timeout=60).stdout.decode("utf-8", "replace")
            parts.append("<pre>%s</pre>" % body)
        parts.append("</body></html>")
        page = os.path.join(tmp, "page.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write("\n".join(parts))
        width = math.ceil(cols * FONT_PX * ADVANCE_EM) + 8
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--user-data-dir=" + os.path.join(tmp, "profile"), "--hide-scrollbars",
                        "--window-size=%d,%d" % (width, rows * ROW_PX * len(paths)),
                        "--screenshot=" + out, "file://" + page],
                       capture_output=True, timeout=120)
        return None if os.path.exists(out) and os.path.getsize(out) > 0 else "chromium wrote no PNG"
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# The screenshot tool's cell (shared/tools/screenshot.sh sizes its window
# 9 x 15 px a cell); the PIL rendering draws each glyph in one.
PIL_CELL_W, PIL_CELL_H, PIL_BASELINE = 9, 15, 11
FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
              "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf")


def font_files():
    """(regular, bold) DejaVu Sans Mono files, or None."""
    found = []
    for style, default in zip(("Book", "Bold"), FONT_FILES):
        path = default
        if shutil.which("fc-match"):
            out = subprocess.run(["fc-match", "-f", "%{file}", "DejaVu Sans Mono:style=" + style],
                                 capture_output=True, timeout=60).stdout.decode("utf-8", "replace")
            if "DejaVuSansMono" in out:
                path = out
        if not os.path.exists(path):
            return None
        found.append(path)
    return tuple(found)


def styled_cells(text):
    """(row, col, char, fg, bg, reverse, bold) per cell, as cells() with
    the bold attribute (drawn with the bold face, as aha does)."""
    bold = {}
    for row, line in enumerate(text.split("\n")):
        col, on = 0, False
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b\][^\x07]*\x07|([^\x1b])", line):
            if m.group(2) is not None:
                bold[(row, col)] = on
                col += 1
            elif m.group(1) is not None:
                for c in (int(c) if c else 0 for c in m.group(1).split(";")):
                    on = True if c == 1 else False if c in (0, 22) else on
    for row, col, ch, fg, bg, rev in cells(text):
        yield row, col, ch, fg, bg, rev, bold.get((row, col), False)


def render_pil(paths, cols, rows, out):
    """The captures one under another on white paper, rendered by PIL to the
    PNG `out` (cells of PIL_CELL_W x PIL_CELL_H); an error text, or None."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        return "no aha or chromium, and no PIL (apt-get install python3-pil) to render instead"
    files = font_files()
    if not files:
        return "no DejaVu Sans Mono to render with (apt-get install fonts-dejavu-core)"
    faces = [ImageFont.truetype(f, FONT_PX) for f in files]
    img = Image.new("RGB", (cols * PIL_CELL_W, rows * PIL_CELL_H * len(paths)), WHITE)
    glyphs = {}
    for k, path in enumerate(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for row, col, ch, fg, bg, rev, bold in styled_cells(text):
            if row >= rows or col >= cols:
                continue
            ink = rgb(fg) if fg is not None else BLACK
            paper = rgb(bg) if bg is not None else WHITE
            if rev:
                ink, paper = paper, ink
            x, y = col * PIL_CELL_W, (k * rows + row) * PIL_CELL_H
            if paper != WHITE:
                img.paste(paper, (x, y, x + PIL_CELL_W, y + PIL_CELL_H))
            if ch == " ":
                continue
            mask = glyphs.get((ch, bold))
            if mask is None:  # the glyph's coverage in one cell, antialiased
                mask = Image.new("L", (PIL_CELL_W, PIL_CELL_H), 0)
                ImageDraw.Draw(mask).text((0, PIL_BASELINE), ch, fill=255, font=faces[bold], anchor="ls")
                glyphs[(ch, bold)] = mask
            img.paste(ink, (x, y, x + PIL_CELL_W, y + PIL_CELL_H), mask)
    img.save(out)
    return None


def render_any(paths, cols, rows, out):
    """Render with Chromium where aha and Chromium are installed, else with
    PIL (CONTRAST_RENDERER=pil or chromium insists on one): (an error text
    or None, (cell width, row height) in px, the renderer's name)."""
    want = os.environ.get("CONTRAST_RENDERER", "")
    have_chromium = shutil.which("aha") and shutil.which("chromium")
    if want == "chromium" or (want != "pil" and have_chromium):
        return render(paths, cols, rows, out), (FONT_PX * ADVANCE_EM, ROW_PX), "chromium"
    return render_pil(paths, cols, rows, out), (PIL_CELL_W, PIL_CELL_H), "PIL"


def read_png(path):
    """(width, height, bytes per pixel, rows of bytes) of an 8-bit RGB or
    RGBA PNG (what Chromium writes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", data[pos + 8:pos + 21])
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG kind %s not read here" % (head,))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    out, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        kind, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(line)
        prev = line
    return w, h, bpp, out


def png_ratios(png, texts, rows, cell=None):
    """{(screen index, row, col): measured contrast} of the inked figure
    cells of the captures `texts` (rendered one under another, each `rows`
    tall, into `png`, cells of `cell` = (width, height) px; Chromium's by
    default)."""
    w, h, bpp, pix = read_png(png)
    advance, row_px = cell or (FONT_PX * ADVANCE_EM, ROW_PX)
    out = {}
    for k, text in enumerate(texts):
        fig = figure_cells(text)
        # Blanks ("61.7 k") have no ink of their own, and an underscore is
        # drawn below the row's box: neither is measured.
        inked = sorted((r, c) for r, c, ch, _, _, _ in cells(text) if (r, c) in fig and ch not in " _")
        for row, col in inked:
            y0 = int((k * rows + row) * row_px)
            x0, x1 = math.ceil(advance * col), math.floor(advance * (col + 1))
            if y0 + row_px > h or x1 > w:
                continue
            seen = {}
            for y in range(y0, y0 + int(row_px)):
                line = pix[y]
                for x in range(x0, x1):
                    c = bytes(line[x * bpp:x * bpp + 3])
                    seen[c] = seen.get(c, 0) + 1
            paper = max(seen, key=seen.get)
            out[(k, row, col)] = max(ratio(tuple(c), tuple(paper)) for c in seen)
    return out


def png_low(png, texts, rows, least, cell=None):
    """Figure cells of the captures `texts` (as png_ratios) whose measured
    contrast is below `least`:1: ([(screen index, row, col, ratio)], cells
    measured)."""
    seen = png_ratios(png, texts, rows, cell)
    low = [(k, row, col, r) for (k, row, col), r in sorted(seen.items()) if r < least]
    return low, len(seen)
