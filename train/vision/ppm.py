"""Writes a GdkPixbuf as a binary PPM (P6), the generators' image format."""


def write_ppm(path, pix):
    w, h, stride, ch = pix.get_width(), pix.get_height(), pix.get_rowstride(), pix.get_n_channels()
    data = pix.get_pixels()
    rows = bytearray()
    for y in range(h):
        row = data[y * stride: y * stride + w * ch]
        if ch == 4:
            row = bytes(b for i, b in enumerate(row) if i % 4 != 3)
        rows += row
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(rows)
