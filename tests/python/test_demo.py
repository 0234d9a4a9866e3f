"""`python -m rustape.demo`: its arguments, its table, and the pictures it draws (each PNG is
opened, sized and checked for content)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image
from rustape import demo

PICTURES = ["sigmoid.png", "hessian.png", "batch_jacobian.png"]


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    out = tmp_path_factory.mktemp("demo")
    run = subprocess.run(
        [sys.executable, "-m", "rustape.demo", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return out, run.returncode, run.stdout + run.stderr


def _check_png(path: Path) -> None:
    pixels = image.imread(path)
    height, width = pixels.shape[:2]
    assert (width, height) == (640, 480), f"{path.name}: {width}x{height}"
    rgb = pixels[..., :3].reshape(-1, 3)
    # Not blank: many colours, and more than a sliver of the picture drawn on (a line plot is
    # mostly white; a heat map mostly not).
    colours = len(np.unique((rgb * 255).astype(np.uint8), axis=0))
    assert colours > 50, f"{path.name}: only {colours} colours"
    drawn = 1 - np.all(rgb > 0.98, axis=1).mean()
    assert drawn > 0.03, f"{path.name}: only {drawn:.1%} of it is drawn on"


def test_the_demo_matches_tensorflow_and_says_where_the_pictures_are(drawn) -> None:
    out, status, text = drawn
    assert status == 0, text
    assert "16 of 16 examples give TensorFlow's documented values" in text
    assert str(out.resolve()) in text
    for name in PICTURES:
        assert name in text


@pytest.mark.parametrize("name", PICTURES)
def test_each_picture_is_a_png_with_content(drawn, name: str) -> None:
    out, _, _ = drawn
    _check_png(out / name)


def test_the_tape_graph_is_written_and_drawn_when_graphviz_is_there(drawn) -> None:
    out, _, text = drawn
    dot = (out / "tape_graph.dot").read_text()
    assert dot.startswith("digraph") and "sin" in dot
    png = out / "tape_graph.png"
    if png.exists():
        pixels = image.imread(png)
        assert min(pixels.shape[:2]) > 50
        assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 2
    else:
        assert "Graphviz" in text


def test_no_plots_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main(["--no-plots", "--out", str(tmp_path / "never")]) == 0
    assert not (tmp_path / "never").exists()
    assert "16 of 16" in capsys.readouterr().out


def test_unknown_flags_are_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        demo.main(["--plots-please"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: --plots-please" in capsys.readouterr().err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        demo.main(["--help"])
    assert exit_.value.code == 0
    usage = capsys.readouterr().out
    assert "--out DIR" in usage and "--no-plots" in usage
