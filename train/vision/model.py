"""The learned detector: a small fully convolutional network that paints, at
stride 4, the *core* of every interactive element (its box shrunk to
CORE_SCALE of its width and height around its centre) with the element's
class. Cores of neighbouring widgets never touch even when the widgets do, so
each connected component of one class is one element, and its box is the
component's box grown back by 1 / CORE_SCALE. Encoder to stride 16 with
dilated convolutions (a receptive field of ~300 px: enough to see both edges
of a field or button), 1x1 convolutions back to stride 4 with skip connections.
Input: 1x3xHxW RGB in 0..255 (H, W multiples of 16); output: 1xCxH/4xW/4
class probabilities (softmax), class 0 = background."""
import torch
from torch import nn

CLASSES = ["background", "button", "text_field", "check_box", "radio_button", "slider",
           "combo_box", "spin_button", "tab", "list_item", "menu_item"]
CORE_SCALE = 0.5
STRIDE = 4


def block(cin, cout, stride=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def pointwise(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Net(nn.Module):
    """About 1.6 GMAC on a 1920x1080 frame: 3x3 convolutions only down to
    stride 4 at few channels, the context at stride 16, 1x1 convolutions on
    the way back up."""

    def __init__(self):
        super().__init__()
        self.s4 = nn.Sequential(block(3, 8, 2), block(8, 16, 2))
        self.s8 = nn.Sequential(block(16, 32, 2), block(32, 32))
        self.s16 = nn.Sequential(block(32, 48, 2), block(48, 48, dilation=2), block(48, 48, dilation=4),
                                 block(48, 48, dilation=8))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.d8 = pointwise(48 + 32, 32)
        self.d4 = pointwise(32 + 16, 24)
        self.head = nn.Conv2d(24, len(CLASSES), 1)

    def forward(self, x):
        x = x / 255.0 - 0.5
        f4 = self.s4(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        y = self.d8(torch.cat([self.up(f16), f8], 1))
        y = self.d4(torch.cat([self.up(y), f4], 1))
        return self.head(y)


class Exported(nn.Module):
    """Net with the softmax, as the C++ detector reads it."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return torch.softmax(self.net(x), dim=1)
