"""food_tasks.data.images: strict decoding whatever Pillow's process-wide setting, and the per-process record that
carries an undecodable image from the hook that asked for it to the scorer (docs/failure_accounting.md)."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest
from conftest import NOT_AN_IMAGE, truncated_jpeg
from PIL import Image, ImageFile

from food_tasks.data import images
from food_tasks.data.hub import CorruptImageError


def _encode(image: Image.Image, fmt: str, **kwargs) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt, **kwargs)
    return buf.getvalue()


def _samples() -> dict[str, bytes]:
    noisy = Image.fromarray((np.random.default_rng(3).random((120, 160, 3)) * 255).astype("uint8"))
    flat = Image.new("RGB", (16, 16), (70, 80, 90))  # tiny files: identifying their format reads past their end
    exif = noisy.getexif()
    exif[0x010F] = "PhoneMaker"
    return {
        "jpeg": _encode(noisy, "JPEG", quality=90),
        "jpeg progressive": _encode(noisy, "JPEG", progressive=True),
        "jpeg exif": _encode(noisy, "JPEG", exif=exif.tobytes()),
        "jpeg cmyk": _encode(noisy.convert("CMYK"), "JPEG"),
        "jpeg + trailing data (motion photo)": _encode(noisy, "JPEG") + b"\x00" * 64 + b"ftypmp42" + b"x" * 4000,
        "png": _encode(noisy, "PNG"),
        "png rgba": _encode(noisy.convert("RGBA"), "PNG"),
        "png palette": _encode(noisy.convert("P"), "PNG"),
        "webp": _encode(noisy, "WEBP"),
        "webp lossless": _encode(noisy, "WEBP", lossless=True),
        "gif": _encode(noisy, "GIF"),
        "bmp": _encode(noisy, "BMP"),
        "tiff": _encode(noisy, "TIFF"),
        "tiny png": _encode(flat, "PNG"),
        "tiny webp": _encode(flat, "WEBP"),
        "tiny jpeg": _encode(flat, "JPEG"),
    }


@pytest.mark.parametrize("lenient", [False, True])  # lmms-eval sets True process-wide
def test_decode_accepts_complete_images_and_refuses_cut_ones_whatever_the_pillow_setting(monkeypatch, lenient):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", lenient)
    for name, data in _samples().items():
        assert images.decode(data, name).size in ((160, 120), (16, 16)), name
        if not name.startswith("tiny") and "trailing" not in name:
            for keep in (0.5, 0.9):
                with pytest.raises(CorruptImageError, match=rf"^{name}: cannot decode the image \("):
                    images.decode(data[: int(len(data) * keep)], name)
        assert ImageFile.LOAD_TRUNCATED_IMAGES is lenient  # never switched, not even for a moment under a lock
    with pytest.raises(CorruptImageError, match=r"^photo: cannot decode the image") as err:
        images.decode(truncated_jpeg(), "photo")
    # lenient Pillow grey-fills the rest: our own check names the cause; strict Pillow raises its own error
    assert (err.value.reason == "truncated: the data ends before the image does") is lenient
    with pytest.raises(CorruptImageError, match=r"^junk: cannot decode the image"):
        images.decode(NOT_AN_IMAGE, "junk")


def test_decode_file_and_rgb(tmp_path):
    path = tmp_path / "a.png"
    path.write_bytes(_encode(Image.new("RGBA", (4, 3), (1, 2, 3, 0)), "PNG"))
    image = images.decode_file(path)
    assert image.mode == "RGBA" and images.rgb(image).mode == "RGB"
    rgb = images.rgb(images.decode(_samples()["jpeg"], "x"))
    assert images.rgb(rgb) is rgb  # an RGB image is not copied
    with pytest.raises(CorruptImageError, match="unreadable file"):
        images.decode_file(tmp_path / "absent.jpg")


def test_decoding_threads_run_side_by_side():
    """No lock serialises decoding: two threads can be inside ``decode`` at the same time (lmms-eval's vLLM
    class builds up to 32 requests at once)."""
    inside, both = threading.Semaphore(0), threading.Event()
    data = _samples()["png"]

    original = images._Watched.read

    def read(self, size=-1):  # type: ignore[no-untyped-def]
        if size and size > 4096 and not both.is_set():  # the pixel data: wait until the other thread is decoding too
            inside.release()
            both.wait(5)
        return original(self, size)

    images._Watched.read = read  # type: ignore[method-assign]
    try:
        threads = [threading.Thread(target=images.decode, args=(data, f"t{i}")) for i in range(2)]
        for thread in threads:
            thread.start()
        assert inside.acquire(timeout=5) and inside.acquire(timeout=5)
        both.set()
        for thread in threads:
            thread.join(5)
    finally:
        images._Watched.read = original  # type: ignore[method-assign]
        both.set()


def test_a_failure_is_recorded_once_and_answers_the_scorer(caplog):
    from loguru import logger

    messages: list[str] = []
    sink = logger.add(messages.append, level="WARNING")
    calls = []

    def broken():  # type: ignore[no-untyped-def]
        calls.append(1)
        raise CorruptImageError("/data/u1.jpg: cannot decode the image (truncated)")

    try:
        assert images.load("/data/u1.jpg", broken, "Bench") is None
        assert images.load("/data/u1.jpg", broken, "Bench") is None  # not decoded again
        assert len(calls) == 1 and len(messages) == 1 and "Bench: an image cannot be used" in messages[0]
        assert images.failure("/data/u1.jpg") == "/data/u1.jpg: cannot decode the image (truncated)"
        probes = []
        assert images.missing(["/data/u1.jpg"], probes.append)  # answered from the record, no check
        assert images.load("/data/ok.jpg", lambda: Image.new("RGB", (2, 2)), "Bench").size == (2, 2)
        assert not images.missing(["/data/ok.jpg"], probes.append) and probes == []
        # never asked for (a replay model): the cheap check decides, once per key
        assert images.missing(["/data/other.jpg", "/data/ok.jpg"], lambda key: "no header")
        assert images.missing(["/data/other.jpg"], lambda key: pytest.fail("checked twice"))
        assert not images.missing(["/data/fine.jpg"], lambda key: None)
        # a later success never undoes a failure (documents that missed the image stay counted)
        images.load("/data/fine.jpg", broken, "Bench")
        assert images.load("/data/fine.jpg", lambda: Image.new("RGB", (2, 2)), "Bench") is None
        assert images.missing(["/data/fine.jpg"], lambda key: None)
    finally:
        logger.remove(sink)


def test_warnings_stop_naming_images_after_the_limit(monkeypatch):
    from loguru import logger

    monkeypatch.setattr(images, "WARN_LIMIT", 3)
    messages: list[str] = []
    sink = logger.add(messages.append, level="WARNING")
    try:
        for i in range(6):
            images.missing([f"k{i}"], lambda key: "bad")
    finally:
        logger.remove(sink)
    assert len(messages) == 4 and "further ones are counted in image_missing only" in messages[-1]


def test_probe_file_reads_the_header_only(tmp_path):
    (tmp_path / "cut.jpg").write_bytes(truncated_jpeg())
    (tmp_path / "junk.jpg").write_bytes(NOT_AN_IMAGE)
    assert images.probe_file(tmp_path / "cut.jpg") is None  # intact header: only decoding finds the cut
    assert images.probe_file(tmp_path / "junk.jpg").startswith(f"{tmp_path / 'junk.jpg'}: ")
    assert "No such file" in images.probe_file(tmp_path / "absent.jpg")
