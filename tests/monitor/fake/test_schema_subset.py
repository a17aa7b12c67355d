"""The schema subset FakeGitHub executes against stays true to GitHub's schema."""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path

from graphql import build_schema, parse, print_ast, validate_schema
from graphql.language import (
    DefinitionNode,
    EnumTypeDefinitionNode,
    FieldDefinitionNode,
    InputObjectTypeDefinitionNode,
    InputValueDefinitionNode,
    InterfaceTypeDefinitionNode,
    ObjectTypeDefinitionNode,
    UnionTypeDefinitionNode,
)

from review_monitor.testing import schema_subset

PACKAGE = resources.files("review_monitor.testing")


def _subset_text() -> str:
    return PACKAGE.joinpath("github-schema-subset.graphql").read_text(encoding="utf-8")


def _by_name(sdl: str) -> dict[str, DefinitionNode]:
    return {
        d.name.value: d  # type: ignore[attr-defined]
        for d in parse(sdl, no_location=True).definitions
        if getattr(d, "name", None) is not None
    }


def _plain(node: FieldDefinitionNode | InputValueDefinitionNode) -> str:
    """A field's definition without its description."""
    if isinstance(node, FieldDefinitionNode):
        args = tuple(
            InputValueDefinitionNode(
                name=a.name, type=a.type, default_value=a.default_value, directives=a.directives
            )
            for a in node.arguments or ()
        )
        node = FieldDefinitionNode(
            name=node.name, arguments=args, type=node.type, directives=node.directives
        )
    else:
        node = InputValueDefinitionNode(
            name=node.name,
            type=node.type,
            default_value=node.default_value,
            directives=node.directives,
        )
    return print_ast(node)


def _differences(subset: DefinitionNode, full: DefinitionNode) -> list[str]:
    name = subset.name.value  # type: ignore[attr-defined]
    if type(subset) is not type(full):
        return [f"{name}: a {type(subset).__name__} here, a {type(full).__name__} at GitHub"]
    out: list[str] = []
    if isinstance(subset, ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode):
        assert isinstance(full, ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode)
        theirs = {f.name.value: _plain(f) for f in full.fields or ()}
        for f in subset.fields or ():
            if theirs.get(f.name.value) != _plain(f):
                out.append(f"{name}.{f.name.value} differs")
        their_interfaces = {i.name.value for i in full.interfaces or ()}
        out += [
            f"{name} implements {i.name.value}, GitHub's does not"
            for i in subset.interfaces or ()
            if i.name.value not in their_interfaces
        ]
    elif isinstance(subset, UnionTypeDefinitionNode):
        assert isinstance(full, UnionTypeDefinitionNode)
        members = {t.name.value for t in full.types or ()}
        out += [
            f"{name} has {t.name.value}" for t in subset.types or () if t.name.value not in members
        ]
    elif isinstance(subset, EnumTypeDefinitionNode):
        assert isinstance(full, EnumTypeDefinitionNode)
        if [v.name.value for v in subset.values or ()] != [v.name.value for v in full.values or ()]:
            out.append(f"{name}: enum values differ")
    elif isinstance(subset, InputObjectTypeDefinitionNode):
        assert isinstance(full, InputObjectTypeDefinitionNode)
        if [_plain(v) for v in subset.fields or ()] != [_plain(v) for v in full.fields or ()]:
            out.append(f"{name}: input fields differ")
    return out


def test_every_extracted_type_matches_githubs_schema(shared_dir: Path) -> None:
    full = _by_name((shared_dir / "github" / "schema.graphql").read_text(encoding="utf-8"))
    subset = _by_name(_subset_text())
    problems = [f"{n} is not in GitHub's schema" for n in subset if n not in full]
    for name, node in subset.items():
        if name in full:
            problems += _differences(node, full[name])
    assert [] == problems


def test_the_subset_is_what_the_script_extracts_today(shared_dir: Path, repo_root: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "extract_schema", repo_root / "monitor" / "scripts" / "extract_schema.py"
    )
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    full = (shared_dir / "github" / "schema.graphql").read_text(encoding="utf-8")
    assert _subset_text() == script.extract(full)


def test_the_subset_is_a_valid_schema() -> None:
    assert [] == validate_schema(build_schema(_subset_text()))


def test_the_package_ships_githubs_license_beside_the_subset() -> None:
    license_text = PACKAGE.joinpath("LICENSE-github-graphql-schema.md").read_text(encoding="utf-8")
    assert "Copyright (c) GitHub" in license_text


def test_the_schema_fakegithub_runs_is_the_packaged_subset() -> None:
    assert sorted(build_schema(_subset_text()).type_map) == sorted(schema_subset().type_map)
