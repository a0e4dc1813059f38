"""What an `eval_models` entry says about its model, for the analyses only (never part of a cache key):
its `family`, size `params_b` (billions of parameters), `release_date`, and for a fine-tuned model its
`base_model` (the entry it was fine-tuned from) and `finetune_set` (the export's set it was trained on).

Every key is optional: a value not given stays unknown (NULL in the marts), never guessed."""
from __future__ import annotations

import datetime
import math
from typing import Any


METADATA_KEYS = ("family", "params_b", "release_date", "base_model", "finetune_set")


def parse_metadata(entry: dict, where: str) -> dict[str, Any]:
    """The entry's metadata keys, checked (a ValueError naming the key); absent keys are left out."""
    from ..exports.finetune_sets import FINETUNE_SETS  # here: the export imports the requests, which import this

    out: dict[str, Any] = {}
    family = entry.get("family")
    if family is not None:
        if not isinstance(family, str) or not family.strip():
            raise ValueError(f"{where}: key `family` {family!r} must be a non-empty name, e.g. gemma-2")
        out["family"] = family.strip()
    params_b = entry.get("params_b")
    if params_b is not None:
        if isinstance(params_b, bool) or not isinstance(params_b, (int, float)) or not math.isfinite(params_b) \
                or params_b <= 0:
            raise ValueError(f"{where}: key `params_b` {params_b!r} must be a positive number of billions of "
                             "parameters, e.g. 8 or 0.27")
        out["params_b"] = float(params_b)
    release = entry.get("release_date")
    if release is not None:
        out["release_date"] = _iso_date(release, where)
    base, finetune_set = entry.get("base_model"), entry.get("finetune_set")
    if (base is None) != (finetune_set is None):
        raise ValueError(f"{where}: keys `base_model` and `finetune_set` go together (a fine-tuned model names the "
                         "entry it was fine-tuned from and the set it was trained on)")
    if base is not None:
        if not isinstance(base, str) or not base:
            raise ValueError(f"{where}: key `base_model` {base!r} must be the name of another entry")
        if base == entry.get("name"):
            raise ValueError(f"{where}: key `base_model` names the entry itself")
        if finetune_set not in FINETUNE_SETS:
            raise ValueError(f"{where}: key `finetune_set` {finetune_set!r} must be one of "
                             f"{', '.join(FINETUNE_SETS)}")
        out["base_model"], out["finetune_set"] = base, finetune_set
    return out


def _iso_date(value: Any, where: str) -> str:
    """A date as YYYY-MM-DD: a YAML date, or a string of that form."""
    if isinstance(value, datetime.datetime):
        value = value.date()
    if isinstance(value, datetime.date):
        return value.isoformat()
    try:
        if isinstance(value, str) and len(value) == 10:
            return datetime.date.fromisoformat(value).isoformat()
    except ValueError:
        pass
    raise ValueError(f"{where}: key `release_date` {value!r} must be a date YYYY-MM-DD, e.g. 2024-06-27")


def check_base_models(entries: list[dict], where_of) -> None:
    """Each `base_model` names another entry of the same list (its scores are what the gain is against)."""
    names = {e.get("name") for e in entries if isinstance(e, dict)}
    for i, entry in enumerate(entries):
        base = entry.get("base_model") if isinstance(entry, dict) else None
        if base is not None and base not in names:
            raise ValueError(f"{where_of(i, entry)}: key `base_model` {base!r} names no entry of eval_models; "
                             "list the base model's entry too (its cached answers cost nothing)")
