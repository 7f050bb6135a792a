"""The learned detector: a small fully convolutional network that reads a
window at stride 4 and gives, for every cell of 4x4 pixels,

- the probability of each class (softmax; class 0 = background); a cell is
  foreground when it lies in the *core* of an interactive element (its box
  shrunk to CORE_SCALE of its width and height around its centre), so the
  cores of widgets that touch do not;
- the distances, in pixels, from the cell's centre to the left, top, right
  and bottom edges of the element it belongs to (an FCOS-style box per cell).

The C++ detector (src/vision/learned_detector.cpp) gathers the foreground
cells that predict the same box into one element: its box the cells' boxes
averaged, its class the one with the most probability summed over them.

Body: a 4x4 stride-4 stem, 3x3 convolutions to stride 8 and 16, then
depthwise-separable 3x3 convolutions with dilations 1, 2, 4 and 8 at stride
16 (a receptive field of ~600 px: both edges of a wide field or button are in
view of its centre), 1x1 convolutions back to stride 4 with skip connections.
About 0.85 GMAC on a 1920x1080 frame.

Input: 1x3xHxW RGB in 0..255 (H, W multiples of 16); output of Exported:
1x(C+4)xH/4xW/4, C class probabilities then the 4 distances."""
import torch
from torch import nn

CLASSES = ["background", "button", "text_field", "check_box", "radio_button", "slider",
           "combo_box", "spin_button", "tab", "list_item", "menu_item"]
CORE_SCALE = 0.5
STRIDE = 4
# Distances are predicted as log(d / BOX_UNIT).
BOX_UNIT = 16.0


def block(cin, cout, stride=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def separable(c, dilation):
    return nn.Sequential(
        nn.Conv2d(c, c, 3, 1, padding=dilation, dilation=dilation, groups=c, bias=False),
        nn.BatchNorm2d(c), nn.ReLU(inplace=True),
        nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True))


def pointwise(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.s4 = nn.Sequential(nn.Conv2d(3, 16, 4, 4, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.s8 = block(16, 32, 2)
        self.s16 = nn.Sequential(block(32, 64, 2), separable(64, 1), separable(64, 2), separable(64, 4),
                                 separable(64, 8))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.d8 = pointwise(64 + 32, 32)
        self.d4 = pointwise(32 + 16, 24)
        self.cls = nn.Conv2d(24, len(CLASSES), 1)
        self.box = nn.Conv2d(24, 4, 1)

    def forward(self, x):
        """Class logits (N x C x h x w) and log box distances (N x 4 x h x w)."""
        x = x / 255.0 - 0.5
        f4 = self.s4(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        y = self.d8(torch.cat([self.up(f16), f8], 1))
        y = self.d4(torch.cat([self.up(y), f4], 1))
        return self.cls(y), self.box(y)


class Exported(nn.Module):
    """Net as the C++ detector reads it: softmax over the classes, then the
    four distances in pixels, in one tensor."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        logits, box = self.net(x)
        return torch.cat([torch.softmax(logits, dim=1), torch.exp(box) * BOX_UNIT], 1)
