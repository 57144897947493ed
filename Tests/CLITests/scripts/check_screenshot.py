"""Checks that a screenshot of the HTML report is not blank: prints one JSON line of measurements
and exits non-zero when the picture looks empty. Usage: check_screenshot.py PNG"""
import json
import sys

from PIL import Image

image = Image.open(sys.argv[1]).convert("RGB")
width, height = image.size
small = image.resize((width // 4, height // 4))
raw = small.tobytes()
pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]
background = max(set(pixels), key=pixels.count)
ink = sum(1 for p in pixels if sum(abs(a - b) for a, b in zip(p, background)) > 60)
colors = len(set(pixels))
blue = sum(1 for r, g, b in pixels if b > 180 and r < 110 and g < 140)
result = {"width": width, "height": height, "ink_share": ink / len(pixels), "colors": colors, "bar_pixels": blue}
print(json.dumps(result))
ok = result["ink_share"] > 0.02 and colors > 50 and blue > 200
sys.exit(0 if ok else 1)
