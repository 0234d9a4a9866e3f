"""keras.datasets and keras.utils.get_file: each loader on small files in the real formats
gives what Keras 3 gives for them (tests/reference/gen_datasets.py), downloads are cached
and hash-checked, and no dataset file can run code or write outside its folder."""

import hashlib
import io
import os
import pickle
import tarfile
import zipfile

import numpy as np
import pytest
import rustape as rt
from rustape.keras.datasets import _common

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "..", "reference", "datasets")
REF = np.load(os.path.join(HERE, "..", "reference", "datasets.npz"))
ds = rt.keras.datasets


def read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


def sha256(path):
    return hashlib.sha256(read(path)).hexdigest()


@pytest.fixture
def local(monkeypatch, tmp_path):
    """The loaders fetch the stand-in files from a file:// origin into a scratch cache."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    origin = "file://" + os.path.abspath(FILES) + "/"
    monkeypatch.setattr(_common, "ORIGIN", origin)
    monkeypatch.setattr(_common, "CIFAR_ORIGIN", origin)
    monkeypatch.setattr(
        _common, "HASHES", {name: sha256(os.path.join(FILES, name)) for name in os.listdir(FILES)}
    )
    return tmp_path / "keras"


def check(prefix, result):
    (xa, ya), (xb, yb) = result
    for key, value in (("x_train", xa), ("y_train", ya), ("x_test", xb), ("y_test", yb)):
        if f"{prefix}/{key}/lengths" in REF:
            assert value.dtype == object and value.ndim == 1
            np.testing.assert_array_equal([len(v) for v in value], REF[f"{prefix}/{key}/lengths"])
            flat = [w for v in value for w in v]
            np.testing.assert_array_equal(np.array(flat, np.int64), REF[f"{prefix}/{key}/values"])
        else:
            want = REF[f"{prefix}/{key}"]
            assert value.dtype == want.dtype and value.shape == want.shape, (prefix, key)
            np.testing.assert_array_equal(value, want)


LOADS = [
    ("mnist", lambda: ds.mnist.load_data()),
    ("fashion_mnist", lambda: ds.fashion_mnist.load_data()),
    ("cifar10", lambda: ds.cifar10.load_data()),
    ("cifar100_fine", lambda: ds.cifar100.load_data()),
    ("cifar100_coarse", lambda: ds.cifar100.load_data(label_mode="coarse")),
    ("boston", lambda: ds.boston_housing.load_data()),
    ("boston_split", lambda: ds.boston_housing.load_data(test_split=0.35, seed=7)),
    ("california", lambda: ds.california_housing.load_data()),
    (
        "california_small",
        lambda: ds.california_housing.load_data(version="small", test_split=0.1, seed=3),
    ),
    ("imdb", lambda: ds.imdb.load_data()),
    (
        "imdb_opts",
        lambda: ds.imdb.load_data(num_words=30, skip_top=5, maxlen=25, seed=5, index_from=2),
    ),
    (
        "imdb_no_oov",
        lambda: ds.imdb.load_data(num_words=40, oov_char=None, start_char=None, index_from=0),
    ),
    ("reuters", lambda: ds.reuters.load_data()),
    (
        "reuters_opts",
        lambda: ds.reuters.load_data(num_words=50, skip_top=2, maxlen=20, test_split=0.3, seed=9),
    ),
]


@pytest.mark.parametrize("prefix,load", LOADS, ids=[p for p, _ in LOADS])
def test_loaders_match_keras(local, prefix, load, capsys):
    check(prefix, load())
    check(prefix, load())  # the second call reads the cache
    assert capsys.readouterr().out.count("Downloading data from") >= 1


def test_word_indices_and_labels(local):
    assert ds.imdb.get_word_index() == {"the": 1, "and": 2, "film": 17}
    assert ds.reuters.get_word_index()["film"] == 17
    names = ds.reuters.get_label_names()
    assert len(names) == 46 and names[3] == "earn" and names[-1] == "lead"


def test_downloads_are_cached_and_checked(tmp_path, capsys):
    source = tmp_path / "src" / "data.bin"
    source.parent.mkdir()
    source.write_bytes(b"abc" * 1000)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    cache = tmp_path / "cache"
    path = rt.keras.utils.get_file(origin=source.as_uri(), file_hash=digest, cache_dir=str(cache))
    assert path == str(cache / "datasets" / "data.bin") and read(path) == b"abc" * 1000
    source.unlink()  # the cached copy matches: no second download
    assert (
        rt.keras.utils.get_file(
            "data.bin", origin=source.as_uri(), file_hash=digest, cache_dir=str(cache)
        )
        == path
    )
    assert capsys.readouterr().out.count("Downloading") == 1
    # An MD5 digest (32 hex digits) and md5_hash work too.
    md5 = hashlib.md5(b"abc" * 1000).hexdigest()
    assert (
        rt.keras.utils.get_file(
            "data.bin", origin="file:///nowhere", md5_hash=md5, cache_dir=str(cache)
        )
        == path
    )
    # A wrong digest: the cached copy is fetched again; a download that does not match is
    # removed and raises.
    source.write_bytes(b"tampered")
    with open(path, "wb") as f:
        f.write(b"truncated")
    with pytest.raises(ValueError, match="incomplete or corrupted"):
        rt.keras.utils.get_file(
            "data.bin", origin=source.as_uri(), file_hash=digest, cache_dir=str(cache)
        )
    assert not os.path.exists(path)
    with pytest.raises(OSError, match="URL fetch failure"):
        rt.keras.utils.get_file(
            "gone.bin", origin=(tmp_path / "missing").as_uri(), cache_dir=str(cache)
        )
    with pytest.raises(ValueError, match="must be a file name"):
        rt.keras.utils.get_file("a/b.bin", origin=source.as_uri(), cache_dir=str(cache))
    with pytest.raises(ValueError, match="origin"):
        rt.keras.utils.get_file("x")


def test_extract_names_and_folders(tmp_path):
    archive = tmp_path / "pack.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = b"inside"
        info = tarfile.TarInfo("pack/a.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    cache = str(tmp_path / "cache")
    # A name with a suffix keeps the archive under that name and extracts to "<stem>_extracted".
    out = rt.keras.utils.get_file(
        "pack.tar.gz", origin=archive.as_uri(), extract=True, cache_dir=cache
    )
    assert out.endswith(os.path.join("datasets", "pack_extracted"))
    assert read(os.path.join(out, "pack", "a.txt")) == b"inside"
    # A name without one extracts to the name and keeps the archive as "<name>_archive".
    out = rt.keras.utils.get_file(
        "pack", origin=archive.as_uri(), untar=True, cache_dir=cache, cache_subdir="models"
    )
    assert out.endswith(os.path.join("models", "pack"))
    assert os.path.exists(out + "_archive") and os.path.isdir(os.path.join(out, "pack"))
    zipped = tmp_path / "z.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("inner/b.txt", "zip")
    out = rt.keras.utils.get_file("z", origin=zipped.as_uri(), extract=True, cache_dir=cache)
    assert read(os.path.join(out, "inner", "b.txt"), "r") == "zip"


def test_archives_cannot_escape_their_folder(tmp_path):
    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        for name in ("../escaped.txt", "/abs_escaped.txt", "ok/fine.txt"):
            info = tarfile.TarInfo(name)
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        link = tarfile.TarInfo("ok/link")
        link.type, link.linkname = tarfile.SYMTYPE, "../../outside"
        tar.addfile(link)
    cache = tmp_path / "cache"
    with pytest.warns(UserWarning, match="outside"):
        out = rt.keras.utils.get_file(
            "evil", origin=archive.as_uri(), extract=True, cache_dir=str(cache)
        )
    assert os.path.exists(os.path.join(out, "ok", "fine.txt"))
    assert not os.path.lexists(os.path.join(out, "ok", "link"))
    assert not (cache / "datasets" / "escaped.txt").exists()
    assert not os.path.exists("/abs_escaped.txt")
    zipped = tmp_path / "evil.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("../zip_escaped.txt", "x")
    with pytest.warns(UserWarning, match="outside"):
        rt.keras.utils.get_file(
            "evilzip", origin=zipped.as_uri(), extract=True, cache_dir=str(cache)
        )
    assert not (cache / "datasets" / "zip_escaped.txt").exists()


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_pickled_files_cannot_run_code(local, tmp_path):
    from rustape.keras import _files

    with pytest.raises(pickle.UnpicklingError, match="posix.system|os.system"):
        _files.restricted_load(io.BytesIO(pickle.dumps({"data": _Boom()})))
    # A .npz whose object array smuggles a callable in is refused, not executed.
    bad = np.empty(1, dtype=object)
    bad[0] = _Boom()
    path = tmp_path / "bad.npz"
    np.savez(path, x=bad)
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        _files.load_npz(str(path))
    # Plain arrays and lists of numbers load.
    good = np.empty(2, dtype=object)
    good[0], good[1] = [1, 2], [3]
    np.savez(tmp_path / "good.npz", x=good, y=np.arange(3))
    loaded = _files.load_npz(str(tmp_path / "good.npz"))
    assert loaded["x"].tolist() == [[1, 2], [3]] and loaded["y"].tolist() == [0, 1, 2]


def test_bad_arguments():
    with pytest.raises(ValueError, match="label_mode"):
        ds.cifar100.load_data(label_mode="x")
    with pytest.raises(ValueError, match="test_split"):
        ds.boston_housing.load_data(test_split=-0.1)
    with pytest.raises(ValueError, match="version"):
        ds.california_housing.load_data(version="huge")
    with pytest.raises(TypeError, match="unexpected"):
        ds.imdb.load_data(nb_words=10)
