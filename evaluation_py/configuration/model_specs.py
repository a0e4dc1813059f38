"""Models under test, as given in the dbt var `eval_models`: parsed and checked, one clear error per entry."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Optional

from ..backends import base
from ..backends.params import check_params
from ..choice.spec import ChoiceSpec, parse_choice_items
from ..exports.finetune_splits import SPLITS
from ..prompting.image_prompts import IMAGE_FORMAT, IMAGE_MODES
from ..prompting.prompts import TABLE_FORMATS
from .model_metadata import METADATA_KEYS, check_base_models, parse_metadata
from .redaction import redact_entry, scrub

# The formats an entry may ask for: the text renderings, and the table's PNG (for backends with `images`).
ENTRY_FORMATS = (*TABLE_FORMATS, IMAGE_FORMAT)

# Keys of every entry; a backend reads its own beyond these (`Backend.entry_keys`), any other is an error.
# `choice_items`: two-option items (evaluation_py.choice.spec); `splits`: the fine-tuning splits
# (benchmark_finetune_splits) whose tables an entry is asked on, e.g. [test] for a model fine-tuned on the
# export's train split; `shots`: 0 (default) or 1 worked example before each question (prompting.one_shot);
# METADATA_KEYS: what the entry says about its model, for the analyses (model_metadata).
COMMON_KEYS = frozenset({"name", "backend", "model", "params", "formats", "sources", "sample", "system_role",
                         "modes", "sandbox", "max_turns", "variants", "table_in_prompt", "choice_items", "splits",
                         "shots", "families", "sample_per_family", "max_table_cells", *METADATA_KEYS})
# `families`: the question families an entry is asked (registered family ids; real questions have none);
# `sample_per_family`: the seeded sample taken per family, that many questions of each (instead of `sample`);
# `max_table_cells`: only the questions whose table has at most that many cells (benchmark_tables.n_cells), before
# the sample is drawn: short prompts, for a model that reads slowly (a local model on a CPU).
# `variants`: which variants of the benchmark's questions an entry answers; the sample is drawn
# from the originals and an original's obfuscated twin and paraphrases come with it, so they are scored side by
# side; `counterfactual` asks every question of the layout counterfactual sets (var layout_counterfactuals
# sets their number), whatever the sample
VARIANTS = ("original", "obfuscated", "paraphrase", "counterfactual")

# The same seeded 3,000 questions for both (every template and domain is represented at default scale);
# set `eval_models` to run the oracle over everything.
DEFAULT_EVAL_MODELS = [
    {"name": "oracle", "backend": "oracle", "sample": 3000,
     "choice_items": {"sample": 100}},  # checks the choice chain: 100 items per subset, both orders
    {"name": "header_match", "backend": "header_match", "sample": 3000},
]
# The baselines' model names: every build has them, and the analyses keep them apart from models under test.
BASELINE_NAMES = tuple(entry["name"] for entry in DEFAULT_EVAL_MODELS)


@dataclass(frozen=True)
class ModelSpec:
    name: str
    backend: str
    model: str
    formats: tuple[str, ...] = ("html",)
    sources: Optional[tuple[str, ...]] = None  # None: every source
    sample: Optional[int] = None  # None: every question
    system_role: bool = True
    params: dict = field(default_factory=dict)
    backend_config: dict = field(default_factory=dict)  # everything the backend itself reads
    identity: dict = field(default_factory=dict)  # answer-changing entry fields, for the cache key
    modes: tuple[str, ...] = ("direct",)  # inference modes (evaluation_py.modes.inference_mode)
    sandbox: str = "bubblewrap"  # where pot / icot code runs: bubblewrap, or the weaker rlimits (opt-in)
    max_turns: Optional[int] = None  # an entry's own turn limit for multi-turn modes (None: the mode's)
    choice_items: Optional[ChoiceSpec] = None  # two-option items it answers (None: none)
    variants: tuple[str, ...] = ("original",)  # question variants (VARIANTS)
    splits: Optional[tuple[str, ...]] = None  # fine-tuning splits of the tables asked on (None: every table)
    metadata: dict = field(default_factory=dict)  # family, params_b, release_date, base_model, finetune_set
    shots: int = 0  # worked examples before each question: 0 or 1
    # what pot / icot prompts show of the table: `structure` (the default; the program reads the cells) or `full`
    table_in_prompt: str = "structure"
    families: Optional[tuple[str, ...]] = None  # question families asked (None: every question)
    sample_per_family: Optional[int] = None  # questions per family of the seeded sample (None: `sample` applies)
    max_table_cells: Optional[int] = None  # the largest table asked on, in cells (None: every table)


def unknown_key_error(key: str, backend_name: str, known: frozenset[str]) -> str:
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(sorted(known))}"
    return f"unknown key {key!r} for backend {backend_name!r}; {hint}"


def check_image_entry(where: str, name: str, model: str, backend_name: str, capabilities: frozenset[str],
                      modes: list[str]) -> None:
    """`formats: [image]` needs a backend that sends images and modes that have an image prompt."""
    if "images" not in capabilities:
        raise ValueError(f"{where}: formats [image]: model {name!r} ({model!r}, backend {backend_name!r}) cannot be "
                         f"shown images (backend {backend_name!r} lacks capability 'images'); nothing was sent. "
                         f"Use a text format ({', '.join(TABLE_FORMATS)}) or a vision model behind openai or vllm")
    no_prompt = [m for m in modes if m not in IMAGE_MODES]
    if no_prompt:
        raise ValueError(f"{where}: formats [image]: inference mode(s) {', '.join(map(repr, no_prompt))} have no "
                         f"image prompt; image prompts exist for {', '.join(IMAGE_MODES)}")


def parse_eval_models(raw: Any) -> list[ModelSpec]:
    """The checked entries of var `eval_models`; a ValueError naming the entry, with its secrets masked."""
    try:
        return _parse_eval_models(raw)
    except ValueError as e:
        raise ValueError(scrub(str(e), raw)) from None


def _parse_eval_models(raw: Any) -> list[ModelSpec]:
    import evaluation_py.backends  # noqa: F401  (fills the backend registry)
    from ..modes.inference_mode import get_mode, mode_names

    if raw is None:
        raw = DEFAULT_EVAL_MODELS
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"var eval_models must be a non-empty list of model entries, got {redact_entry(raw)!r}")
    specs, names = [], set()
    check_base_models(raw, lambda i, entry: f"eval_models entry {i + 1} ({redact_entry(entry)!r})")
    for i, entry in enumerate(raw):
        where = f"eval_models entry {i + 1} ({redact_entry(entry)!r})"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: must be a mapping with at least name and backend")
        name, backend_name = entry.get("name"), entry.get("backend")
        if not name or not isinstance(name, str):
            raise ValueError(f"{where}: missing model name (key `name`)")
        if name in names:
            raise ValueError(f"{where}: model name {name!r} is used twice")
        names.add(name)
        try:
            cls = base.backend_class(backend_name)
        except LookupError as e:
            raise ValueError(f"{where}: {e}") from None
        known = COMMON_KEYS | cls.entry_keys
        for key in entry:
            if key not in known:
                raise ValueError(f"{where}: {unknown_key_error(str(key), backend_name, known)}")
        model = (entry.get("model") or cls.default_model
                 or (None if cls.needs_model else backend_name))
        if not model:
            raise ValueError(f"{where}: backend {backend_name!r} needs a model id (key `model`)")
        formats = entry.get("formats", ["html"])
        formats = [formats] if isinstance(formats, str) else formats
        bad = [f for f in formats if f not in ENTRY_FORMATS]
        if not formats or bad:
            raise ValueError(f"{where}: formats {formats!r} must be among {', '.join(ENTRY_FORMATS)}")
        sources = entry.get("sources")
        sources = [sources] if isinstance(sources, str) else sources
        if sources is not None and (not sources or any(s not in ("synthetic", "real") for s in sources)):
            raise ValueError(f"{where}: sources {sources!r} must be among synthetic, real")
        sample = entry.get("sample")
        if sample is not None and (not isinstance(sample, int) or isinstance(sample, bool) or sample < 1):
            raise ValueError(f"{where}: sample {sample!r} must be a positive number of questions")
        families, per_family = _families(entry, where)
        max_cells = entry.get("max_table_cells")
        if max_cells is not None and (not isinstance(max_cells, int) or isinstance(max_cells, bool) or max_cells < 1):
            raise ValueError(f"{where}: key `max_table_cells` {max_cells!r} must be a positive number of cells")
        if per_family is not None and sample is not None:
            raise ValueError(f"{where}: keys `sample` and `sample_per_family` exclude each other (a sample of the "
                             "whole, or one per family)")
        variants = entry.get("variants", ["original"])
        variants = [variants] if isinstance(variants, str) else variants
        if (not isinstance(variants, list) or not variants or len(set(map(str, variants))) != len(variants)
                or any(v not in VARIANTS for v in variants)):
            raise ValueError(f"{where}: key `variants` {variants!r} must be a non-empty list of distinct variants "
                             f"among {', '.join(VARIANTS)}")
        splits = _splits(entry, where)
        metadata = parse_metadata(entry, where)
        if "obfuscated" in variants and "image" in formats:
            raise ValueError(f"{where}: key `variants`: the obfuscated twins have no images (benchmark_table_images "
                             "draws the originals only); ask them in a text format")
        modes = entry.get("modes", ["direct"])
        modes = [modes] if isinstance(modes, str) else modes
        if not isinstance(modes, list) or not modes or len(set(map(str, modes))) != len(modes):
            raise ValueError(f"{where}: key `modes` {modes!r} must be a non-empty list of distinct inference modes")
        for mode_name in modes:
            if mode_name not in mode_names():
                raise ValueError(f"{where}: key `modes`: unknown inference mode {mode_name!r}; "
                                 f"known modes: {', '.join(mode_names())}")
            lacking = sorted(get_mode(mode_name).required_capabilities() - cls.capabilities)
            if lacking:
                raise ValueError(f"{where}: key `modes`: inference mode {mode_name!r} needs capability "
                                 f"{', '.join(map(repr, lacking))}, which backend {backend_name!r} lacks")
        if IMAGE_FORMAT in formats:
            check_image_entry(where, name, model, backend_name, cls.capabilities, modes)
        sandbox, max_turns, table_in_prompt = _mode_options(entry, modes, where)
        shots = _shots(entry, where, modes, formats)
        params = entry.get("params") or {}
        if not isinstance(params, dict):
            raise ValueError(f"{where}: params must be a mapping of decoding parameters")
        system_role = entry.get("system_role", cls.default_system_role)
        if not isinstance(system_role, bool):
            raise ValueError(f"{where}: system_role must be true or false, got {system_role!r}")
        config = {k: v for k, v in entry.items() if k in cls.entry_keys}
        config["model"] = model
        if params:
            config["params"] = params
        try:
            check_params(params)
            cls.check_entry(config)
            identity = cls.answer_identity(config)
            choice_items = parse_choice_items(entry.get("choice_items"), cls.capabilities, backend_name)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        specs.append(ModelSpec(name, backend_name, model, tuple(formats), tuple(sources) if sources else None,
                               sample, system_role, params, config, identity, tuple(modes), sandbox, max_turns,
                               choice_items=choice_items, variants=tuple(variants), splits=splits,
                               metadata=metadata, shots=shots, table_in_prompt=table_in_prompt,
                               families=families, sample_per_family=per_family, max_table_cells=max_cells))
    return specs


def _families(entry: dict, where: str) -> tuple[Optional[tuple[str, ...]], Optional[int]]:
    """`families:` distinct registered question families (one may be given bare); `sample_per_family:` a
    positive number of questions per family."""
    from generator_py.core.registry import UnknownNameError
    from generator_py.questions.families import ALL_FAMILIES

    families = entry.get("families")
    if families is not None:
        families = [families] if isinstance(families, str) else families
        if not isinstance(families, list) or not families or len(set(map(str, families))) != len(families):
            raise ValueError(f"{where}: key `families` {families!r} must be a non-empty list of distinct question "
                             "families")
        for f in families:
            try:
                ALL_FAMILIES.get(str(f))
            except UnknownNameError as e:
                raise ValueError(f"{where}: key `families`: {e}") from None
        families = tuple(map(str, families))
    per_family = entry.get("sample_per_family")
    if per_family is not None and (not isinstance(per_family, int) or isinstance(per_family, bool) or per_family < 1):
        raise ValueError(f"{where}: key `sample_per_family` {per_family!r} must be a positive number of questions")
    return families, per_family


def _shots(entry: dict, where: str, modes: list, formats: list) -> int:
    """`shots:` 0 or 1; a one-shot example is a text turn of the direct prompt, so 1 needs those."""
    shots = entry.get("shots", 0)
    if isinstance(shots, bool) or shots not in (0, 1):
        raise ValueError(f"{where}: key `shots` {shots!r} must be 0 or 1")
    if shots == 1 and (list(modes) != ["direct"] or IMAGE_FORMAT in formats):
        raise ValueError(f"{where}: key `shots: 1` is for the direct mode on text formats (modes [direct], no image)")
    return shots


def _splits(entry: dict, where: str) -> Optional[tuple[str, ...]]:
    """`splits:`: a non-empty list of distinct fine-tuning splits (a single split may be given bare)."""
    if "splits" not in entry:
        return None
    splits = entry["splits"]
    splits = [splits] if isinstance(splits, str) else splits
    if (not isinstance(splits, list) or not splits or len(set(map(str, splits))) != len(splits)
            or any(s not in SPLITS for s in splits)):
        raise ValueError(f"{where}: key `splits` {splits!r} must be a non-empty list of distinct fine-tuning "
                         f"splits among {', '.join(SPLITS)}")
    return tuple(splits)


def _mode_options(entry: dict, modes: list, where: str) -> tuple[str, Optional[int], str]:
    """`sandbox:`, `max_turns:` and `table_in_prompt:`, checked against the entry's modes."""
    from ..modes.inference_mode import get_mode
    from ..modes.execution import check_sandbox
    from ..prompting.table_structure import TABLE_IN_PROMPT

    sandbox = check_sandbox(entry.get("sandbox"), where)
    max_turns = entry.get("max_turns")
    if max_turns is not None:
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise ValueError(f"{where}: key `max_turns` {max_turns!r} must be a positive integer")
        if not any(get_mode(m).multi_turn for m in modes):
            raise ValueError(f"{where}: key `max_turns` applies to multi-turn modes (icot), and `modes` has none")
    table_in_prompt = entry.get("table_in_prompt", "structure")
    if table_in_prompt not in TABLE_IN_PROMPT:
        raise ValueError(f"{where}: key `table_in_prompt` {table_in_prompt!r} must be one of "
                         f"{', '.join(TABLE_IN_PROMPT)} (structure: the prompt shows the table's shape and headers "
                         "and the program reads the cells; full: the whole table in the prompt)")
    if "table_in_prompt" in entry and not any(get_mode(m).shows_structure for m in modes):
        raise ValueError(f"{where}: key `table_in_prompt` applies to the code modes (pot, icot), and `modes` has none")
    return sandbox, max_turns, table_in_prompt
