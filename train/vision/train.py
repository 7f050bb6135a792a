#!/usr/bin/python3
"""Trains model.Net on the generated windows and exports it to ONNX.

  train.py DATA_DIR OUT.onnx [--minutes M] [--seed S]

Every window's PPM is read into memory; each step takes a batch of random
crops (randomly rescaled by 0.75-1.6 as scale factors do, colour channels
permuted, sometimes inverted) and their core maps (model.py). Cross-entropy,
background weighted down. A fixed 5 % of the windows (by file name hash) is
held back and its pixel accuracy and element recall printed at the end."""
import argparse
import glob
import json
import os
import random
import time
import zlib

import numpy as np
import torch
import torch.nn.functional as F

from model import CLASSES, CORE_SCALE, STRIDE, Exported, Net

CROP = 256


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(maxsplit=4)
    if parts[0] != b"P6" or parts[3] not in (b"255", b"65535"):
        raise ValueError(f"{path}: not a P6 PPM")
    w, h = int(parts[1]), int(parts[2])
    if parts[3] == b"65535":  # ImageMagick's default depth: big-endian 16 bits
        return (np.frombuffer(parts[4][: w * h * 6], ">u2") >> 8).astype(np.uint8).reshape(h, w, 3)
    return np.frombuffer(parts[4][: w * h * 3], np.uint8).reshape(h, w, 3)


def load(data_dir):
    samples = []
    for js in sorted(glob.glob(os.path.join(data_dir, "*.json"))):
        ppm = js[:-5] + ".ppm"
        if not os.path.exists(ppm):
            continue
        with open(js) as f:
            meta = json.load(f)
        boxes = [(x, y, w, h, CLASSES.index(r)) for x, y, w, h, r in meta["boxes"] if r in CLASSES]
        samples.append((os.path.basename(js), read_ppm(ppm), boxes))
    return samples


def core_map(boxes, h, w):
    """Class per stride-4 cell: each box's core, largest boxes first."""
    t = np.zeros((h // STRIDE, w // STRIDE), np.int64)
    for x, y, bw, bh, c in sorted(boxes, key=lambda b: -b[2] * b[3]):
        cx, cy = x + bw / 2, y + bh / 2
        hw, hh = bw * CORE_SCALE / 2, bh * CORE_SCALE / 2
        x0, x1 = int((cx - hw) / STRIDE), int(np.ceil((cx + hw) / STRIDE))
        y0, y1 = int((cy - hh) / STRIDE), int(np.ceil((cy + hh) / STRIDE))
        x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
        t[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = c
    return t


def batch(samples, rng, n):
    xs, ts = [], []
    for _ in range(n):
        _, img, boxes = samples[rng.randrange(len(samples))]
        x = torch.from_numpy(img).permute(2, 0, 1).float()
        s = rng.uniform(0.75, 1.6) if rng.random() < 0.4 else 1.0
        if s != 1.0:
            x = F.interpolate(x[None], scale_factor=s, mode="bilinear", align_corners=False)[0]
            boxes = [(bx * s, by * s, bw * s, bh * s, c) for bx, by, bw, bh, c in boxes]
        _, h, w = x.shape
        ph, pw = max(CROP - h, 0), max(CROP - w, 0)
        if ph or pw:
            fill = float(rng.randrange(256))
            x = F.pad(x, (0, pw, 0, ph), value=fill)
            h, w = x.shape[1:]
        oy = rng.randrange(0, (h - CROP) // STRIDE + 1) * STRIDE
        ox = rng.randrange(0, (w - CROP) // STRIDE + 1) * STRIDE
        x = x[:, oy:oy + CROP, ox:ox + CROP]
        boxes = [(bx - ox, by - oy, bw, bh, c) for bx, by, bw, bh, c in boxes]
        x = x[torch.tensor(rng.sample(range(3), 3))]
        if rng.random() < 0.15:
            x = 255 - x
        xs.append(x)
        ts.append(torch.from_numpy(core_map(boxes, CROP, CROP)))
    return torch.stack(xs), torch.stack(ts)


def components(mask):
    """Bounding boxes (y0, y1, x0, x1, cells) of the 4-connected components of a bool array."""
    h, w = mask.shape
    seen = np.zeros_like(mask)
    out = []
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        stack, cells = [(y, x)], []
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            cells.append((cy, cx))
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        ys, xs = [c[0] for c in cells], [c[1] for c in cells]
        out.append((min(ys), max(ys) + 1, min(xs), max(xs) + 1, cells))
    return out


def decode(prob, threshold=0.7):
    """Boxes (x, y, w, h, class, score) from one CxHxW probability map, as the
    C++ detector does: 4-connected regions of cells whose foreground
    probability (1 - background) is at least `threshold`; a region's class is
    the one with the most probability summed over it, its score the mean
    foreground probability."""
    prob = prob.numpy()
    fg = 1.0 - prob[0]
    out = []
    for y0, y1, x0, x1, cells in components(fg >= threshold):
        ys, xs = np.array([c[0] for c in cells]), np.array([c[1] for c in cells])
        c = 1 + int(prob[1:, ys, xs].sum(1).argmax())
        cx, cy = (x0 + x1) * STRIDE / 2, (y0 + y1) * STRIDE / 2
        # core_map rounds a core out to whole cells, a cell more than its
        # size on average: that cell is taken off before growing it back.
        w = max(x1 - x0 - 1, 0.5) * STRIDE / CORE_SCALE
        h = max(y1 - y0 - 1, 0.5) * STRIDE / CORE_SCALE
        out.append((cx - w / 2, cy - h / 2, w, h, c, float(fg[ys, xs].mean())))
    return out


def iou(a, b):
    ax1, ay1, bx1, by1 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw = max(0, min(ax1, bx1) - max(a[0], b[0]))
    ih = max(0, min(ay1, by1) - max(a[1], b[1]))
    inter = iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter + 1e-9)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--minutes", type=float, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--resume", help="weights (.pt) to start from")
    ap.add_argument("--lr", type=float, default=3e-3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    samples = load(args.data)
    held = [s for s in samples if zlib.crc32(s[0].encode()) % 20 == 0]
    train = [s for s in samples if zlib.crc32(s[0].encode()) % 20 != 0]
    print(f"{len(train)} training windows, {len(held)} held back", flush=True)
    net = Net()
    if args.resume:
        net.load_state_dict(torch.load(args.resume))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    weight = torch.ones(len(CLASSES))
    weight[0] = 0.3
    start = time.time()
    budget = args.minutes * 60
    step = 0
    while time.time() - start < budget:
        frac = (time.time() - start) / budget
        for g in opt.param_groups:
            g["lr"] = args.lr * (0.5 * (1 + np.cos(np.pi * frac))) + 1e-5
        x, t = batch(train, rng, args.batch)
        loss = F.cross_entropy(net(x), t, weight=weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            print(f"step {step} {time.time() - start:.0f}s loss {loss.item():.4f}", flush=True)
    print(f"trained {step} steps in {(time.time() - start) / 60:.1f} min", flush=True)
    net.eval()
    found = total = 0
    with torch.no_grad():
        for _, img, boxes in held:
            h, w = img.shape[0] // 16 * 16, img.shape[1] // 16 * 16
            x = torch.from_numpy(img[:h, :w]).permute(2, 0, 1).float()[None]
            dets = decode(torch.softmax(net(x), 1)[0])
            for b in boxes:
                if b[0] + b[2] > w or b[1] + b[3] > h:
                    continue
                total += 1
                found += any(iou(b, d) >= 0.5 for d in dets)
    print(f"held-back windows: recall {found}/{total} at IoU >= 0.5", flush=True)
    torch.save(net.state_dict(), args.out + ".pt")
    torch.onnx.export(Exported(net), torch.zeros(1, 3, 256, 256), args.out, opset_version=11,
                      input_names=["image"], output_names=["cores"],
                      dynamic_axes={"image": {2: "height", 3: "width"}, "cores": {2: "h4", 3: "w4"}})
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)", flush=True)


if __name__ == "__main__":
    main()
