"""Prompts that show a table as a PNG image (format `image`): the stored form, the key form, the wire form.

A request keeps its image as a reference to the stored file, never as bytes:
``{"type": "image", "table_id": ..., "path": ..., "sha256": ...}`` (what eval_prompts stores). Its
cache key sees only the image's hash (`key_messages`), so moving the exports folder does not
re-ask anything and a redrawn image does. A backend that sends images turns the reference into an
OpenAI image content part, ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``,
read from the file and checked against the hash (`wire_messages`) just before sending.

The wording is that of the text prompt (`prompts.PROMPT`: same instructions, same question block);
only the table line differs, so text and image answers compare on equal terms. No dbt imports.
"""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from .prompts import PROMPT, PromptTemplate

IMAGE_FORMAT = "image"
IMAGE_PART_TYPE = "image"  # the stored reference; never sent as is
IMAGE_MIME = "image/png"
# The table line of an image prompt (the text prompt's `Table (HTML):`, for the picture below it).
IMAGE_TABLE_HEADER = "Table (PNG image):"
IMAGE_PROMPT_VERSION = "hctqa-zeroshot-image-v1"
# Inference modes with an image prompt; another mode asked for `formats: [image]` is an entry error.
IMAGE_MODES = ("direct",)


class ImageFileError(ValueError):
    """A table image that cannot be sent: missing file, or bytes that are not the stored hash."""


@dataclass(frozen=True)
class TableImage:
    table_id: str
    path: str
    sha256: str


def image_part(image: TableImage) -> dict:
    return {"type": IMAGE_PART_TYPE, "table_id": image.table_id, "path": image.path, "sha256": image.sha256}


def build_image_messages(image: TableImage, question: str, system_role: bool = True,
                         template: Optional[PromptTemplate] = None) -> tuple[dict, ...]:
    """Chat messages asking `question` about the table drawn in `image`: the system message holds the
    instructions, the user message the table line, the image and the question (in that order, as in
    the text prompt)."""
    template = template or PROMPT
    question_text = template.question_block.format(question=question.strip())
    intro = IMAGE_TABLE_HEADER if system_role else f"{template.system}{template.fold_separator}{IMAGE_TABLE_HEADER}"
    user = {"role": "user", "content": [{"type": "text", "text": intro}, image_part(image),
                                        {"type": "text", "text": question_text}]}
    if system_role:
        return ({"role": "system", "content": template.system}, user)
    return (user,)


def _parts(messages: Iterable[dict]) -> Iterable[dict]:
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            yield from (p for p in content if isinstance(p, dict))


def has_images(messages: Iterable[dict]) -> bool:
    return any(p.get("type") == IMAGE_PART_TYPE for p in _parts(messages))


def _map_images(messages: Iterable[dict], change) -> list[dict]:
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            m = {**m, "content": [change(p) if isinstance(p, dict) and p.get("type") == IMAGE_PART_TYPE else p
                                  for p in content]}
        out.append(m)
    return out


def key_messages(messages: Iterable[dict]) -> list[dict]:
    """The messages as a cache key sees them: each image by its hash alone (not its path)."""
    return _map_images(messages, lambda p: {"type": IMAGE_PART_TYPE, "sha256": p["sha256"]})


def read_verified(path: str, sha256: str, table_id: str = "") -> bytes:
    """The file's bytes, after checking they hash to `sha256` (benchmark_table_images)."""
    where = f"table image {path!r}" + (f" (table {table_id!r}, benchmark_table_images)" if table_id else "")
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ImageFileError(f"{where} cannot be read ({e.strerror or e}); rebuild benchmark_table_images") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ImageFileError(f"{where} has sha256 {actual}, not the stored {sha256}: the file changed after the "
                             "build; rebuild benchmark_table_images")
    return data


def data_url(data: bytes, mime: str = IMAGE_MIME) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


class ImageWire:
    """Turns stored image references into OpenAI image content parts; each file is read and checked once."""

    def __init__(self):
        self._urls: dict[tuple[str, str], str] = {}

    def url(self, part: dict) -> str:
        key = (part["path"], part["sha256"])
        if key not in self._urls:
            self._urls[key] = data_url(read_verified(part["path"], part["sha256"], part.get("table_id", "")))
        return self._urls[key]

    def messages(self, messages: Iterable[dict]) -> list[dict]:
        """The messages as sent: every image reference replaced by its base64 data URL part."""
        return _map_images(messages, lambda p: {"type": "image_url", "image_url": {"url": self.url(p)}})


# The columns of the tables frame that image requests read (benchmark_table_images' path and sha256).
IMAGE_COLUMNS = ("image_path", "image_sha256")


def with_table_images(tables, images):
    """`tables` with each table's stored image (`image_path`, `image_sha256`) from benchmark_table_images rows."""
    renamed = images[["table_id", "path", "sha256"]].rename(columns={"path": "image_path", "sha256": "image_sha256"})
    return tables.merge(renamed, on="table_id", how="left")


def table_images(tables, table_ids: Iterable[str], model_name: str) -> dict[str, TableImage]:
    """table_id -> its stored image, for the tables an image request asks about (an error names one without)."""
    missing_columns = [c for c in IMAGE_COLUMNS if c not in tables.columns]
    if missing_columns:
        raise ValueError(f"eval_models entry {model_name!r}: formats [image] needs the tables' images "
                         f"(columns {', '.join(missing_columns)} from benchmark_table_images), which were not given")
    known = {t: (p, h) for t, p, h in zip(tables["table_id"], tables["image_path"], tables["image_sha256"])
             if isinstance(p, str) and isinstance(h, str)}
    out = {}
    for table_id in sorted(set(table_ids)):
        if table_id not in known:
            raise ValueError(f"eval_models entry {model_name!r}: table {table_id!r} has no image in "
                             "benchmark_table_images; rebuild it")
        out[table_id] = TableImage(table_id, *known[table_id])
    return out
