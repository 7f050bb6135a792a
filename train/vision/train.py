#!/usr/bin/python3
"""Trains model.Net on the generated windows and exports it to ONNX.

  train.py DATA_DIR OUT.onnx [--minutes M] [--threads T] [--seed S] [--eval-every M]

Every window's PPM is read into memory; each step takes a batch of random
crops (randomly rescaled by 0.75-1.6 as scale factors do, colour channels
permuted, sometimes inverted, sometimes on a plain ground) and their targets (model.py): each cell's class
(the elements' cores) and, on the cores, the distances to the element's
edges. Loss: cross-entropy on the classes plus
-log IoU of the predicted and true boxes on the cores. A fixed 5 % of the
windows (by file name hash) is held back; recall and precision at IoU >= 0.5
on them are printed while training (--eval-every) and, at the end, for a
range of foreground thresholds (the C++ detector's kForeground is chosen from
these, never from the held-out apps). Writes OUT.onnx and the weights,
OUT.onnx.pt (--resume takes them)."""
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

from model import BOX_UNIT, CLASSES, CORE_SCALE, STRIDE, Exported, Net

CROP = 320
# Decoding, as src/vision/learned_detector.cpp does it (chosen on the windows
# held back from training, never on the held-out apps; except that
# SUPPRESS_IOU suppresses per class because suppressing across classes, 0.9
# points of F1 better on the held-back windows, lost the held-out GTK 3
# form's check box: README.md).
FOREGROUND = 0.3
CLUSTER_IOU = 0.5
SUPPRESS_IOU = 0.3
MIN_CELLS = 2
MIN_COVERAGE = 0.35


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


def targets(boxes, h, w):
    """Per stride-4 cell: its class (each box's core, largest boxes first, so
    a small widget inside a large one keeps its own cells) and the distances
    from the cell's centre to that box's left, top, right and bottom edges."""
    cls = np.zeros((h // STRIDE, w // STRIDE), np.int64)
    dist = np.ones((4, h // STRIDE, w // STRIDE), np.float32)
    for x, y, bw, bh, c in sorted(boxes, key=lambda b: -b[2] * b[3]):
        cx, cy = x + bw / 2, y + bh / 2
        hw, hh = bw * CORE_SCALE / 2, bh * CORE_SCALE / 2
        x0, x1 = int((cx - hw) / STRIDE), int(np.ceil((cx + hw) / STRIDE))
        y0, y1 = int((cy - hh) / STRIDE), int(np.ceil((cy + hh) / STRIDE))
        x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, w // STRIDE), min(y1, h // STRIDE)
        if x1 <= x0 or y1 <= y0:
            continue
        cls[y0:y1, x0:x1] = c
        px = (np.arange(x0, x1) + 0.5) * STRIDE
        py = (np.arange(y0, y1) + 0.5) * STRIDE
        dist[0, y0:y1, x0:x1] = np.maximum(px - x, 1)[None, :]
        dist[1, y0:y1, x0:x1] = np.maximum(py - y, 1)[:, None]
        dist[2, y0:y1, x0:x1] = np.maximum(x + bw - px, 1)[None, :]
        dist[3, y0:y1, x0:x1] = np.maximum(y + bh - py, 1)[:, None]
    return cls, dist


def batch(samples, rng, n):
    xs, ts, ds = [], [], []
    for _ in range(n):
        _, img, boxes = samples[rng.randrange(len(samples))]
        x = torch.from_numpy(img).permute(2, 0, 1).float()
        s = rng.uniform(0.75, 1.6) if rng.random() < 0.4 else 1.0
        if s != 1.0:
            x = F.interpolate(x[None], scale_factor=s, mode="bilinear", align_corners=False)[0]
            boxes = [(bx * s, by * s, bw * s, bh * s, c) for bx, by, bw, bh, c in boxes]
        if rng.random() < 0.3:
            # The window on a plain ground (a desktop, an empty canvas): large
            # flat areas must read as background.
            left, top, right, bottom = (rng.randrange(0, 257) for _ in range(4))
            x = F.pad(x, (left, right, top, bottom), value=float(rng.randrange(256)))
            boxes = [(bx + left, by + top, bw, bh, c) for bx, by, bw, bh, c in boxes]
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
        cls, dist = targets(boxes, CROP, CROP)
        ts.append(torch.from_numpy(cls))
        ds.append(torch.from_numpy(dist))
    return torch.stack(xs), torch.stack(ts), torch.stack(ds)


def box_loss(pred, dist, positive):
    """-log IoU of the predicted and true boxes around each positive cell
    (UnitBox / FCOS): both boxes hold the cell's centre, so they overlap."""
    if not positive.any():
        return pred.sum() * 0
    p = torch.exp(pred.clamp(-6, 6)) * BOX_UNIT
    p = p.permute(0, 2, 3, 1)[positive]
    t = dist.permute(0, 2, 3, 1)[positive]
    area_p = (p[:, 0] + p[:, 2]) * (p[:, 1] + p[:, 3])
    area_t = (t[:, 0] + t[:, 2]) * (t[:, 1] + t[:, 3])
    iw = torch.minimum(p[:, 0], t[:, 0]) + torch.minimum(p[:, 2], t[:, 2])
    ih = torch.minimum(p[:, 1], t[:, 1]) + torch.minimum(p[:, 3], t[:, 3])
    inter = iw * ih
    return -torch.log((inter + 1) / (area_p + area_t - inter + 1)).mean()


def decode(out, threshold=FOREGROUND, min_cells=MIN_CELLS, min_coverage=MIN_COVERAGE):
    """Boxes (x, y, w, h, class, score) from one (C+4)xHxW map of Exported,
    as the C++ detector does: the cells whose foreground probability (1 - the
    background's) is at least `threshold`, most sure first, each gathering
    the cells not yet taken whose boxes overlap its own at IoU >= CLUSTER_IOU.
    A group is one element when it has at least `min_cells` cells and they
    cover at least `min_coverage` of the core of the box they predict (a few
    cells that see a large box are a fragment, not a widget); its box the
    group's boxes averaged (weighted by foreground probability), its class
    the one with the most probability summed over it, its score the mean
    foreground. Last, most sure first, a box overlapping one of its class
    kept at IoU >= SUPPRESS_IOU is the same widget seen again and is
    dropped."""
    out = out.numpy() if hasattr(out, "numpy") else out
    c = len(CLASSES)
    fg = 1.0 - out[0]
    ys, xs = np.nonzero(fg >= threshold)
    if len(ys) == 0:
        return []
    score = fg[ys, xs]
    px, py = (xs + 0.5) * STRIDE, (ys + 0.5) * STRIDE
    d = out[c:c + 4, ys, xs]
    bx = np.stack([px - d[0], py - d[1], px + d[2], py + d[3]], 1)
    area = (bx[:, 2] - bx[:, 0]) * (bx[:, 3] - bx[:, 1])
    free = np.ones(len(ys), bool)
    result = []
    for i in np.argsort(-score, kind="stable"):
        if not free[i]:
            continue
        iw = np.clip(np.minimum(bx[:, 2], bx[i, 2]) - np.maximum(bx[:, 0], bx[i, 0]), 0, None)
        ih = np.clip(np.minimum(bx[:, 3], bx[i, 3]) - np.maximum(bx[:, 1], bx[i, 1]), 0, None)
        inter = iw * ih
        members = free & (inter >= CLUSTER_IOU * (area + area[i] - inter))
        free &= ~members
        n = int(members.sum())
        if n < min_cells:
            continue
        wgt = score[members]
        b = (bx[members] * wgt[:, None]).sum(0) / wgt.sum()
        w, h = b[2] - b[0], b[3] - b[1]
        if n < min_coverage * core_cells(w, h):
            continue
        cls = 1 + int(out[1:c, ys[members], xs[members]].sum(1).argmax())
        result.append((b[0], b[1], w, h, cls, float(wgt.mean())))
    kept = []
    for d in sorted(result, key=lambda d: -d[5]):
        if all(k[4] != d[4] or iou(d, k) < SUPPRESS_IOU for k in kept):
            kept.append(d)
    return kept


def core_cells(w, h):
    """How many cells the core of a w x h box covers (at least one a side)."""
    return max(w * CORE_SCALE / STRIDE, 1.0) * max(h * CORE_SCALE / STRIDE, 1.0)


def iou(a, b):
    ax1, ay1, bx1, by1 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw = max(0, min(ax1, bx1) - max(a[0], b[0]))
    ih = max(0, min(ay1, by1) - max(a[1], b[1]))
    inter = iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter + 1e-9)


def held_back_scores(net, held, thresholds=(FOREGROUND,)):
    """Recall and precision at IoU >= 0.5 over the held-back windows, per
    foreground threshold."""
    net.eval()
    counts = {t: [0, 0, 0] for t in thresholds}  # found, truths, detections
    exported = Exported(net)
    with torch.no_grad():
        for _, img, boxes in held:
            h, w = img.shape[0] // 16 * 16, img.shape[1] // 16 * 16
            x = torch.from_numpy(img[:h, :w]).permute(2, 0, 1).float()[None]
            out = exported(x)[0]
            truths = [b for b in boxes if b[0] + b[2] <= w and b[1] + b[3] <= h]
            for t in thresholds:
                dets = decode(out, t)
                counts[t][0] += sum(any(iou(b, d) >= 0.5 for d in dets) for b in truths)
                counts[t][1] += len(truths)
                counts[t][2] += sum(any(iou(b, d) >= 0.5 for b in boxes) for d in dets)
                counts[t].append(len(dets))
    net.train()
    return {t: (c[0] / max(c[1], 1), c[2] / max(sum(c[3:]), 1)) for t, c in counts.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--minutes", type=float, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1, help="PyTorch threads (default 1)")
    ap.add_argument("--resume", help="weights (.pt) to start from")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--background-weight", type=float, default=1.0,
                    help="the background class's weight in the loss (0.3 gave a detector that saw widgets "
                         "in empty areas)")
    ap.add_argument("--eval-every", type=float, default=0,
                    help="minutes between held-back evaluations (0: only at the end)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
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
    weight[0] = args.background_weight
    start = time.time()
    budget = args.minutes * 60
    next_eval = args.eval_every * 60 if args.eval_every > 0 else float("inf")
    step = 0
    while time.time() - start < budget:
        frac = (time.time() - start) / budget
        for g in opt.param_groups:
            g["lr"] = args.lr * (0.5 * (1 + np.cos(np.pi * frac))) + 1e-5
        x, t, d = batch(train, rng, args.batch)
        logits, box = net(x)
        cls_loss = F.cross_entropy(logits, t, weight=weight)
        reg_loss = box_loss(box, d, t > 0)
        loss = cls_loss + reg_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            print(f"step {step} {time.time() - start:.0f}s class {cls_loss.item():.4f} box {reg_loss.item():.4f}",
                  flush=True)
        if time.time() - start >= next_eval:
            next_eval += args.eval_every * 60
            torch.save(net.state_dict(), args.out + ".pt")  # a checkpoint: --resume continues from it
            r, p = held_back_scores(net, held)[FOREGROUND]
            print(f"held-back windows at step {step}: recall {r:.3f} precision {p:.3f} "
                  f"(foreground >= {FOREGROUND})", flush=True)
    print(f"trained {step} steps in {(time.time() - start) / 60:.1f} min", flush=True)
    for t, (r, p) in held_back_scores(net, held, (0.3, 0.4, 0.5, 0.6, 0.7)).items():
        print(f"held-back windows, foreground >= {t}: recall {r:.3f} precision {p:.3f} at IoU >= 0.5", flush=True)
    net.eval()
    torch.save(net.state_dict(), args.out + ".pt")
    torch.onnx.export(Exported(net), torch.zeros(1, 3, 256, 256), args.out, opset_version=11,
                      input_names=["image"], output_names=["cells"],
                      dynamic_axes={"image": {2: "height", 3: "width"}, "cells": {2: "h4", 3: "w4"}})
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)", flush=True)


if __name__ == "__main__":
    main()
