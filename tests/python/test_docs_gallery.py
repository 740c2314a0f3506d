"""docs/gallery.md lists every figure of docs/img/ and names commands that exist."""
import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def gallery():
    with open(os.path.join(ROOT, "docs", "gallery.md"), encoding="utf-8") as f:
        return f.read()


def test_every_figure_is_in_the_gallery():
    images = sorted(name for name in os.listdir(os.path.join(ROOT, "docs", "img"))
                    if name.endswith((".png", ".svg", ".jpg")))
    assert images
    text = gallery()
    missing = [name for name in images if f"img/{name}" not in text]
    assert not missing, f"figures of docs/img/ missing from docs/gallery.md: {missing}"


def test_gallery_links_and_commands_exist():
    text = gallery()
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        assert os.path.exists(os.path.join(ROOT, "docs", target)), target
    scripts = re.findall(r"(docs/plots/[A-Za-z0-9_]+\.py|tools/[A-Za-z0-9_]+\.py)", text)
    assert scripts
    for script in scripts:
        assert os.path.isfile(os.path.join(ROOT, script)), script
