"""Random widget text for the generators: nonsense-free but meaningless
combinations, so a model cannot learn real labels."""
import random

WORDS = """amber basin cedar delta ember fable garnet harbor iris jasper kettle lantern
meadow nectar orbit pebble quartz raven saddle timber umber velvet willow yonder
zephyr anchor bramble copper dune falcon glacier hollow island juniper kiln
marble north olive prism quiver ridge spruce tundra valley walnut yarrow beacon
cobalt drift ferry grove heron ivory lagoon maple nimbus otter pine ripple slate
thistle upland vortex wren azure birch canyon dew flint gale hazel indigo lark
moss nova opal plume quill reed sable tide vale wisp""".split()


def phrase(rng: random.Random, lo=1, hi=3) -> str:
    n = rng.randint(lo, hi)
    text = " ".join(rng.choice(WORDS) for _ in range(n))
    r = rng.random()
    if r < 0.5:
        return text.capitalize()
    if r < 0.6:
        return text.upper()
    return text


# Key labels for the generators' calculator keypads (--apps).
KEYS = ["7", "8", "9", "4", "5", "6", "1", "2", "3", "0", ".", "=", "+", "−", "×", "÷", "%", "±",
        "C", "AC", "CE", "√", "x²", "xʸ", "1/x", "(", ")", "π", "e", "sin", "cos", "tan", "ln", "log",
        "MC", "MR", "M+", "M−", "MS", "Inv", "Hyp", "Mod", "And", "Or", "Xor", "Not", "Lsh", "Rsh",
        "A", "B", "C", "D", "E", "F", "Exp", "n!", "⌫", "Ans"]
