"""Downloads into Keras's cache (`keras.utils.get_file`) and the readers for the files Keras's
datasets come in, none of which runs code: archives extract only inside their target folder,
and pickled arrays rebuild NumPy arrays and nothing else."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
from typing import Any

import numpy as np

__all__ = ["get_file", "keras_home", "load_npz", "restricted_load"]


def keras_home() -> str:
    """Keras's cache and config folder: `$KERAS_HOME`, else `~/.keras`."""
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


# --- pickled NumPy arrays --------------------------------------------------------------------

# What a pickled array may name: the array and dtype constructors (NumPy 1 and 2 spellings).
_ARRAY_GLOBALS = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
    }
)


class _ArraysOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ARRAY_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"refusing to load `{module}.{name}` from a pickled dataset file: only NumPy arrays "
            "and plain Python values may be in one (the file may be corrupted or malicious)"
        )


def restricted_load(file: Any, encoding: str = "ASCII") -> Any:
    """Unpickle `file` allowing only NumPy arrays and plain Python values (dicts, lists,
    numbers, strings, bytes): a pickle naming any other class or function is refused."""
    return _ArraysOnly(file, encoding=encoding).load()


def _load_npy(raw: bytes) -> Any:
    buffer = io.BytesIO(raw)
    try:
        return np.lib.format.read_array(buffer, allow_pickle=False)
    except ValueError:  # an object array: its data is a pickle
        buffer.seek(0)
        major, _ = np.lib.format.read_magic(buffer)
        if major == 1:
            np.lib.format.read_array_header_1_0(buffer)
        elif major in (2, 3):
            np.lib.format.read_array_header_2_0(buffer)
        else:
            raise ValueError(f"unsupported .npy format version {major}") from None
        return restricted_load(buffer)


def load_npz(path: str) -> dict[str, Any]:
    """The arrays of an `.npz` file by name; object arrays (lists of word indices in IMDB and
    Reuters) are unpickled with `restricted_load`, never with `pickle.load`."""
    out = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                out[member[: -len(".npy")]] = _load_npy(archive.read(member))
    return out


# --- archives --------------------------------------------------------------------------------


def _inside(base: str, name: str) -> bool:
    target = os.path.realpath(os.path.join(base, name))
    return os.path.commonpath([target, base]) == base


def _safe_tar_members(archive: tarfile.TarFile, base: str) -> list[tarfile.TarInfo]:
    keep = []
    for member in archive.getmembers():
        ok = _inside(base, member.name)
        if ok and member.issym():
            ok = _inside(base, os.path.join(os.path.dirname(member.name), member.linkname))
        elif ok and member.islnk():
            ok = _inside(base, member.linkname)
        elif ok and not (member.isfile() or member.isdir()):
            ok = False  # devices and fifos
        if ok:
            keep.append(member)
        else:
            warnings.warn(f"skipping {member.name!r}: it would land outside {base}", stacklevel=3)
    return keep


def extract_archive(path: str, into: str, archive_format: Any = "auto") -> bool:
    """Extract a tar (any compression) or zip file into `into`, skipping members whose path or
    link target leaves it. Returns False when `path` is none of `archive_format`'s kinds."""
    if archive_format is None:
        return False
    kinds = ["tar", "zip"] if archive_format == "auto" else archive_format
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    for kind in kinds:
        if kind not in ("tar", "zip"):
            raise ValueError(f"get_file: archive_format {kind!r} is not 'tar', 'zip' or 'auto'")
        if kind == "tar" and tarfile.is_tarfile(path):
            os.makedirs(into, exist_ok=True)
            base = os.path.realpath(into)
            with tarfile.open(path) as archive:
                archive.extractall(base, members=_safe_tar_members(archive, base))
            return True
        if kind == "zip" and zipfile.is_zipfile(path):
            os.makedirs(into, exist_ok=True)
            base = os.path.realpath(into)
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    if _inside(base, info.filename):
                        archive.extract(info, base)
                    else:
                        warnings.warn(
                            f"skipping {info.filename!r}: it would land outside {base}",
                            stacklevel=2,
                        )
            return True
    return False


# --- get_file --------------------------------------------------------------------------------


def _hasher(algorithm: str, file_hash: str | None) -> Any:
    if algorithm == "sha256" or (algorithm == "auto" and file_hash and len(file_hash) == 64):
        return hashlib.sha256()
    if algorithm in ("md5", "auto"):
        return hashlib.md5()
    raise ValueError(
        f"get_file: hash_algorithm must be 'auto', 'sha256' or 'md5', not {algorithm!r}"
    )


def _matches(path: str, file_hash: str, algorithm: str) -> bool:
    hasher = _hasher(algorithm, file_hash)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            hasher.update(chunk)
    return hasher.hexdigest() == str(file_hash)


def _download(origin: str, target: str) -> None:
    print(f"Downloading data from {origin}")
    part = target + ".part"
    try:
        with urllib.request.urlopen(origin) as response, open(part, "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
        os.replace(part, target)
    except urllib.error.HTTPError as e:
        raise OSError(f"get_file: URL fetch failure on {origin}: HTTP {e.code} {e.msg}") from e
    except urllib.error.URLError as e:
        raise OSError(f"get_file: URL fetch failure on {origin}: {e.reason}") from e
    finally:
        if os.path.exists(part):
            os.remove(part)


def get_file(
    fname: str | None = None,
    origin: str | None = None,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: Any = "auto",
    cache_dir: str | None = None,
    force_download: bool = False,
) -> str:
    """Download `origin` into Keras's cache (`~/.keras/<cache_subdir>/`, or `cache_dir`) unless a
    copy whose hash matches `file_hash` is there already, and return its path (Keras's
    `get_file`). `file_hash` is a SHA-256 (64 hex digits) or MD5 digest; a download that does
    not match it is deleted and raises `ValueError`. With `extract=True` (or `untar=True`) the
    tar or zip archive is extracted beside it and the folder's path is returned (members that
    would land outside it are skipped). Without `fname` the name is the URL's last part.

    >>> import os, tempfile, rustape as rt
    >>> folder = tempfile.mkdtemp()
    >>> source = os.path.join(folder, "numbers.txt")
    >>> _ = open(source, "w").write("1 2 3")
    >>> path = rt.keras.utils.get_file(origin="file://" + source, cache_dir=folder)
    Downloading data from file://...numbers.txt
    >>> open(path).read()
    '1 2 3'
    """
    if origin is None:
        raise ValueError("get_file: give `origin`, the URL of the file to download")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(cache_dir if cache_dir is not None else keras_home())
    os.makedirs(base, exist_ok=True)
    if not os.access(base, os.W_OK):
        base = os.path.join(tempfile.gettempdir(), ".keras")
    folder = os.path.join(base, cache_subdir)
    os.makedirs(folder, exist_ok=True)

    name = os.fspath(fname) if fname else ""
    given = bool(name)
    if not name:
        name = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not name:
            raise ValueError(f"get_file: no file name in the origin {origin!r}; give `fname`")
    elif os.sep in name or (os.altsep and os.altsep in name):
        raise ValueError(
            f"get_file: fname must be a file name, not a path ({name!r}); give the folder as "
            "`cache_dir`"
        )
    extract = extract or untar
    extracted = None
    if extract and given and "." in name:  # "x.tar.gz": keep the archive, extract to x_extracted
        target = os.path.join(folder, name)
        extracted = os.path.join(folder, name[: name.find(".")] + "_extracted")
    elif extract:
        target = os.path.join(folder, name + "_archive")
        extracted = os.path.join(folder, name)
    else:
        target = os.path.join(folder, name)

    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not _matches(target, file_hash, hash_algorithm):
        print(
            f"A local file was found, but its {hash_algorithm} hash does not match "
            f"{file_hash}: downloading it again."
        )
        download = True
    if download:
        _download(origin, target)
        if file_hash is not None and not _matches(target, file_hash, hash_algorithm):
            os.remove(target)
            raise ValueError(
                f"get_file: the file downloaded from {origin} is incomplete or corrupted: its "
                f"{hash_algorithm} hash does not match {file_hash}"
            )
    if extracted is not None:
        if not extract_archive(target, extracted, "tar" if untar else archive_format):
            warnings.warn(f"get_file: could not extract {target}", stacklevel=2)
        return extracted
    return target
