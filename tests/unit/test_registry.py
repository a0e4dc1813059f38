"""The one registry type: clashes, unknown names, listings, and plugins loaded once from entry points."""
from __future__ import annotations

import re
import sys
import textwrap

import pytest

from generator_py.core.registry import Registry, RegistryEntry, RegistryError, UnknownNameError


def test_a_second_registration_of_a_name_is_an_error_naming_the_first():
    reg: Registry[int] = Registry("toy number")
    reg.register("one", 1, description="the first")
    with pytest.raises(RegistryError, match=re.escape(f"toy number 'one' is registered already (by {__name__})")):
        reg.register("one", 11, description="again")
    assert reg.get("one") == 1 and reg.names() == ("one",)


def test_an_unknown_name_is_one_error_type_naming_the_closest_names():
    reg: Registry[str] = Registry("metric")
    for name in ("precision", "recall", "f1"):
        reg.register(name, name, description=name)
    with pytest.raises(UnknownNameError, match=r"unknown metric 'recal'; did you mean recall\? "
                                               r"\(registered: precision, recall, f1\)") as info:
        reg.get("recal")
    assert isinstance(info.value, LookupError) and isinstance(info.value, ValueError)
    with pytest.raises(UnknownNameError, match=r"unknown metric 'zzz' \(registered"):
        reg.get("zzz")


def test_listing_has_name_description_origin_in_registration_order():
    reg: Registry[object] = Registry("thing")

    class Documented:
        """First line of the docstring.

        More text."""

    reg.register("b", Documented)
    reg.register("a", object(), description="given", origin="somewhere")
    assert reg.listing() == [RegistryEntry("b", "First line of the docstring.", __name__),
                             RegistryEntry("a", "given", "somewhere")]
    assert reg.unregister("b") is Documented and reg.names() == ("a",)


def test_prepare_checks_before_anything_is_stored():
    def positive(name, item):
        if item <= 0:
            raise ValueError(f"{name} must be positive")
        return item

    reg: Registry[int] = Registry("count", prepare=positive)
    with pytest.raises(ValueError, match="minus must be positive"):
        reg.register("minus", -1, description="")
    assert "minus" not in reg


@pytest.fixture
def plugin_on_path(tmp_path, monkeypatch):
    """A distribution on sys.path with entry points in group `hctqa.toys` (what `pip install` leaves)."""
    (tmp_path / "toy_plugin_mod.py").write_text(textwrap.dedent('''
        LOADS = []
        def seven():
            """Seven, from a plugin."""
            return 7
        LOADS.append("imported")
    '''))
    info = tmp_path / "toy_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hctqa.toys]\nseven = toy_plugin_mod:seven\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("toy_plugin_mod", None)


def test_plugins_load_once_on_first_lookup_after_the_built_in_ones(plugin_on_path):
    reg: Registry = Registry("toy", entry_point_group="hctqa.toys")
    reg.register("builtin", len, description="built in")
    assert "toy_plugin_mod" not in sys.modules  # nothing loaded before a lookup
    assert reg.names() == ("builtin", "seven")
    assert reg.get("seven")() == 7
    assert reg.entry("seven") == RegistryEntry("seven", "Seven, from a plugin.", "plugin toy-plugin")
    reg.names()
    assert sys.modules["toy_plugin_mod"].LOADS == ["imported"]


def test_a_plugin_name_clashing_with_a_registered_one_is_an_error_naming_the_plugin(plugin_on_path):
    reg: Registry = Registry("toy", entry_point_group="hctqa.toys")
    reg.register("seven", 7, description="built in")
    with pytest.raises(RegistryError, match=r"entry point 'seven' = 'toy_plugin_mod:seven' of group 'hctqa.toys' "
                                            r"\(plugin toy-plugin\): toy 'seven' is registered already"):
        reg.names()
