"""The documentation site as a reader sees it: the home page, the API reference and the
performance page built with mkdocs and rendered by a headless Chromium, each checked in its
screenshot (the theme's header drawn, a page of content rather than a blank or unstyled one) and
in the DOM after rendering (the docstrings rendered by mkdocstrings, the gallery and the plots
referring to files the build holds).

Needs the docs extra (`pip install '.[docs]'`) and a Chromium (Debian: `apt-get install
chromium`; CI installs it); skipped otherwise. `TACK_SCREENSHOTS=<folder>` keeps the pictures.
"""
from __future__ import annotations

import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1280, 1600
HEADER_RGB = (0x3F, 0x51, 0xB5)  # mkdocs-material's default primary colour (indigo)

# page -> (its file in the site, words its rendered DOM must hold)
PAGES = {
    "home": ("index.html", ["Tack runs compute kernels", "Where to start"]),
    "api": ("api/index.html", ["API reference", "Decorator: compile", "set_default_device"]),
    "performance": ("performance/index.html", ["At a glance", "How the figures are made"]),
}


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (pip install '.[docs]')")
    if _chromium() is None:
        pytest.skip("no Chromium to render the site (Debian: apt-get install chromium)")
    out = tmp_path_factory.mktemp("site") / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f",
                           str(ROOT / "mkdocs.yml"), "-d", str(out)],
                          check=False, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def _browser(*args: str) -> subprocess.CompletedProcess:
    # --no-sandbox: CI and this project's machines run as root, where Chromium's sandbox refuses
    cmd = [_chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--window-size={WIDTH},{HEIGHT}", *args]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=120)


def _screenshot(page: Path, png: Path) -> np.ndarray:
    from matplotlib.image import imread

    proc = _browser(f"--screenshot={png}", page.as_uri())
    assert png.is_file(), f"no screenshot of {page}: {proc.stderr[-2000:]}"
    keep = os.environ.get("TACK_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / png.name)
    return np.asarray(imread(png))[..., :3]  # floats in [0, 1]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_renders_styled_with_its_content(site, tmp_path, name):
    rel = PAGES[name][0]
    page = site / rel
    img = _screenshot(page, tmp_path / f"{name}.png")
    assert img.shape[:2] == (HEIGHT, WIDTH), img.shape
    # The theme's stylesheet loaded: the header bar across the top is the primary colour.
    top = np.round(img[10:40, :, :] * 255).reshape(-1, 3)
    header = np.all(np.abs(top - HEADER_RGB) <= 3, axis=1).mean()
    assert header > 0.9, f"{name}: the header bar is not drawn ({header:.0%} of its pixels)"
    # A page of content below it, not a blank or failed page: dark (text) pixels in the
    # content column, and many distinct colours (code highlighting, pictures, links).
    body = img[80:, 250:1000, :]
    dark = (body.mean(axis=2) < 0.5).mean()
    assert dark > 0.01, f"{name}: almost no text drawn ({dark:.2%} dark pixels)"
    colours = len(np.unique(np.round(body * 31).reshape(-1, 3), axis=0))
    assert colours > 100, f"{name}: only {colours} colours: an unstyled or empty page?"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_rendered_dom_holds_the_text_and_existing_pictures(site, name):
    rel, words = PAGES[name]
    page = site / rel
    proc = _browser("--dump-dom", page.as_uri())
    dom = proc.stdout
    assert dom.lstrip().startswith("<html") or "<body" in dom, proc.stderr[-2000:]
    text = html.unescape(re.sub(r"<[^>]+>", " ", dom))
    text = re.sub(r"\s+", " ", text)
    for word in words:
        assert word in text, f"{name}: {word!r} is not on the rendered page"
    # every picture the page shows is a file of the build (no broken image)
    sources = re.findall(r'<img\b[^>]*\bsrc="([^"]+)"', dom)
    local = [s for s in sources if not re.match(r"[a-z]+:", s)]
    missing = [s for s in local if not (page.parent / s).resolve().is_file()]
    assert not missing, f"{name}: pictures missing from the site: {missing}"
    if name in ("home", "performance"):
        assert len(local) >= 2, f"{name}: expected its pictures, found {sources}"
