#!/usr/bin/env python3
"""A terminal screen captured by `tmux capture-pane -e -p`, drawn as a PNG.

    render-terminal.py CAPTURE.txt OUT.png [--columns N] [--rows N]

Colours (SGR: the 16 colours, 256 colours and 24-bit), bold and reverse
are drawn; the block and quadrant characters colour pictures are made of
(U+2580-U+259F) are drawn as rectangles, so a picture has no seams; the
rest of the text with DejaVu Sans Mono. Used for the screenshot of browse
in the AppStream metainfo (scripts/screenshot-browse.sh).
"""

import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

CELL_WIDTH, CELL_HEIGHT, FONT_SIZE = 10, 20, 16
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
FOREGROUND, BACKGROUND = (220, 220, 220), (24, 26, 33)
# The 16 colours, as xterm draws them.
BASIC = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
         (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255)]


def color256(index):
    if index < 16:
        return BASIC[index]
    if index < 232:
        index -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[index // 36], steps[index // 6 % 6], steps[index % 6])
    level = 8 + (index - 232) * 10
    return (level, level, level)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.foreground, self.background, self.bold, self.reverse = None, None, False, False

    def apply(self, parameters):
        values = [int(value) if value else 0 for value in parameters.split(";")] if parameters else [0]
        index = 0
        while index < len(values):
            value = values[index]
            if value == 0:
                self.reset()
            elif value == 1:
                self.bold = True
            elif value == 22:
                self.bold = False
            elif value == 7:
                self.reverse = True
            elif value == 27:
                self.reverse = False
            elif 30 <= value <= 37 or 90 <= value <= 97:
                self.foreground = BASIC[value - 30 if value < 90 else value - 82]
            elif 40 <= value <= 47 or 100 <= value <= 107:
                self.background = BASIC[value - 40 if value < 100 else value - 92]
            elif value == 39:
                self.foreground = None
            elif value == 49:
                self.background = None
            elif value in (38, 48) and index + 1 < len(values):
                if values[index + 1] == 2 and index + 4 < len(values):
                    color = tuple(values[index + 2:index + 5])
                    index += 4
                elif values[index + 1] == 5 and index + 2 < len(values):
                    color = color256(values[index + 2])
                    index += 2
                else:
                    color = None
                if value == 38:
                    self.foreground = color
                else:
                    self.background = color
            index += 1

    def colors(self):
        foreground = self.foreground or FOREGROUND
        background = self.background or BACKGROUND
        return (background, foreground) if self.reverse else (foreground, background)


def block(draw, character, x, y, color):
    """The block elements as rectangles: (left, top, right, bottom) in eighths of a cell."""
    code = ord(character)
    boxes = []
    if code == 0x2580:
        boxes = [(0, 0, 8, 4)]
    elif 0x2581 <= code <= 0x2588:
        boxes = [(0, 8 - (code - 0x2580), 8, 8)]
    elif 0x2589 <= code <= 0x258F:
        boxes = [(0, 0, 8 - (code - 0x2588), 8)]
    elif code == 0x2590:
        boxes = [(4, 0, 8, 8)]
    elif code == 0x2594:
        boxes = [(0, 0, 8, 1)]
    elif code == 0x2595:
        boxes = [(7, 0, 8, 8)]
    else:
        quadrants = {0x2596: "3", 0x2597: "4", 0x2598: "1", 0x2599: "134", 0x259A: "14", 0x259B: "123",
                     0x259C: "124", 0x259D: "2", 0x259E: "23", 0x259F: "234"}.get(code)
        if quadrants is None:
            return False
        corners = {"1": (0, 0, 4, 4), "2": (4, 0, 8, 4), "3": (0, 4, 4, 8), "4": (4, 4, 8, 8)}
        boxes = [corners[quadrant] for quadrant in quadrants]
    for left, top, right, bottom in boxes:
        draw.rectangle([x + left * CELL_WIDTH // 8, y + top * CELL_HEIGHT // 8,
                        x + right * CELL_WIDTH // 8 - 1, y + bottom * CELL_HEIGHT // 8 - 1], fill=color)
    return True


def render(capture, columns, rows):
    image = Image.new("RGB", (columns * CELL_WIDTH, rows * CELL_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    regular, bold = ImageFont.truetype(FONT, FONT_SIZE), ImageFont.truetype(BOLD_FONT, FONT_SIZE)
    style = Style()
    for row, line in enumerate(capture.split("\n")[:rows]):
        column = 0
        for token in re.findall(r"\x1b\[[0-9;]*[A-Za-z]|\x1b[^\[]|[^\x1b]", line):
            if token.startswith("\x1b["):
                if token.endswith("m"):
                    style.apply(token[2:-1])
                continue
            if token.startswith("\x1b") or column >= columns:
                continue
            width = 2 if unicodedata.east_asian_width(token) in ("W", "F") else 1
            foreground, background = style.colors()
            x, y = column * CELL_WIDTH, row * CELL_HEIGHT
            draw.rectangle([x, y, x + width * CELL_WIDTH - 1, y + CELL_HEIGHT - 1], fill=background)
            if token != " " and not block(draw, token, x, y, foreground):
                draw.text((x, y + 1), token, font=bold if style.bold else regular, fill=foreground)
            column += width
    return image


def main():
    arguments = sys.argv[1:]
    columns, rows = 100, 30
    if "--columns" in arguments:
        columns = int(arguments.pop(arguments.index("--columns") + 1))
        arguments.remove("--columns")
    if "--rows" in arguments:
        rows = int(arguments.pop(arguments.index("--rows") + 1))
        arguments.remove("--rows")
    if len(arguments) != 2:
        sys.exit(__doc__)
    with open(arguments[0], encoding="utf-8", errors="replace") as source:
        render(source.read(), columns, rows).save(arguments[1], optimize=True)


if __name__ == "__main__":
    main()
