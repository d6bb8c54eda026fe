"""png_not_blank.py — is a screenshot more than an empty page? (used by tests/inspect/inspect_browser_test.sh)

Reads an 8-bit RGB or RGBA PNG with nothing but zlib (chunks, inflate, the five row filters of the PNG spec) and
checks that at least 2% of the pixels are not white and that there are at least 20 distinct colours: a blank or
error page has almost none of either. Prints the numbers; exit 0 when the picture has content, 1 when not.
    usage: png_not_blank.py FILE.png
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + " is not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError("only 8-bit, non-interlaced RGB/RGBA PNGs are read here")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            up_left = previous[x - channels] if x >= channels else 0
            if filter_type == 1:
                line[x] = (line[x] + left) & 255
            elif filter_type == 2:
                line[x] = (line[x] + up) & 255
            elif filter_type == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif filter_type == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[x] = (line[x] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main():
    width, height, channels, rows = read_png(sys.argv[1])
    colours, ink = set(), 0
    for line in rows:
        for x in range(0, len(line), channels):
            pixel = line[x:x + 3]
            colours.add(pixel)
            if pixel != b"\xff\xff\xff":
                ink += 1
    share = ink / float(width * height)
    print("%s: %dx%d, %.1f%% of pixels not white, %d distinct colours" % (sys.argv[1], width, height, 100 * share,
                                                                          len(colours)))
    return 0 if share >= 0.02 and len(colours) >= 20 else 1


if __name__ == "__main__":
    sys.exit(main())
