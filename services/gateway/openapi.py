"""Combining the services' OpenAPI documents into one a client generator can use whole."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

COMPONENT_KINDS = ("schemas", "responses", "parameters", "examples", "requestBodies", "headers",
                   "securitySchemes", "links", "callbacks")
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _camel(service: str) -> str:
    return "".join(part.capitalize() for part in service.replace("_", "-").split("-"))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _rewrite_refs(node: Any, renames: Mapping[str, str]) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value in renames:
                out[key] = renames[value]
            else:
                out[key] = _rewrite_refs(value, renames)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(item, renames) for item in node]
    return node


def _refs(node: Any) -> set[tuple[str, str]]:
    """The ``(kind, name)`` of every local component ``$ref`` inside ``node``."""
    found: set[tuple[str, str]] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/components/"):
                kind, _, name = value.removeprefix("#/components/").partition("/")
                found.add((kind, name))
            else:
                found |= _refs(value)
    elif isinstance(node, list):
        for item in node:
            found |= _refs(item)
    return found


def combine(documents: Mapping[str, Mapping[str, Any]], base_url: str, title: str = "Speltafel",
            version: str = "v1") -> dict[str, Any]:
    """One OpenAPI 3 document for ``{service: its document}``: every path under ``/<service>``, every
    tag and operationId prefixed with the service, ``servers`` set to ``base_url``. A component that
    several services define identically (the problem schema, the error responses, the bearer scheme)
    appears once under its own name; every other is renamed ``<Service><Name>``
    (``GamesJoinBody``, ``MatchmakingJoinBody``) and every ``$ref`` follows the rename."""
    if not documents:
        raise ValueError("no documents to combine")
    versions = {str(doc.get("openapi", "")) for doc in documents.values()}
    if len(versions) != 1:
        raise ValueError(f"the documents use different OpenAPI versions: {sorted(versions)}")
    definitions: dict[tuple[str, str], list[str]] = {}
    for doc in documents.values():
        for kind in COMPONENT_KINDS:
            for name, value in (doc.get("components", {}).get(kind) or {}).items():
                definitions.setdefault((kind, name), []).append(_canonical(value))
    shared = {key for key, forms in definitions.items() if len(forms) > 1 and len(set(forms)) == 1}
    # identical text is not enough when it points at a component that gets renamed per service
    while True:
        keep = {key for key in shared if all(r in shared for r in _refs(json.loads(definitions[key][0])))}
        if keep == shared:
            break
        shared = keep

    combined: dict[str, Any] = {
        "openapi": versions.pop(),
        "info": {"title": title, "version": version,
                 "description": "Every Speltafel service under one base URL: "
                 + ", ".join(f"`/{name}`" for name in documents) + "."},
        "servers": [{"url": base_url.rstrip("/") or "/"}],
        "tags": [],
        "paths": {},
        "components": {},
    }
    components: dict[str, dict[str, Any]] = {}
    for service, original in documents.items():
        doc = copy.deepcopy(dict(original))
        prefix = _camel(service)
        renames: dict[str, str] = {}
        for kind in COMPONENT_KINDS:
            for name in doc.get("components", {}).get(kind) or {}:
                if (kind, name) not in shared:
                    renames[f"#/components/{kind}/{name}"] = f"#/components/{kind}/{prefix}{name}"
        doc = _rewrite_refs(doc, renames)
        for kind in COMPONENT_KINDS:
            for name, value in (doc.get("components", {}).get(kind) or {}).items():
                new_name = name if (kind, name) in shared else f"{prefix}{name}"
                target = components.setdefault(kind, {})
                if new_name in target and _canonical(target[new_name]) != _canonical(value):
                    raise ValueError(f"component {kind}/{new_name} is defined twice")
                target[new_name] = value
        for tag in doc.get("tags") or []:
            combined["tags"].append({**tag, "name": f"{service} {tag['name']}"})
        for path, item in (doc.get("paths") or {}).items():
            new_path = f"/{service}{path}" if path != "/" else f"/{service}/"
            if new_path in combined["paths"]:
                raise ValueError(f"path {new_path} appears twice")
            for method in HTTP_METHODS:
                operation = item.get(method)
                if not isinstance(operation, dict):
                    continue
                if "tags" in operation:
                    operation["tags"] = [f"{service} {tag}" for tag in operation["tags"]]
                if "operationId" in operation:
                    operation["operationId"] = f"{service}_{operation['operationId']}"
            combined["paths"][new_path] = item
        if doc.get("security"):  # a document-wide requirement becomes each of its operations' own
            for item in (doc.get("paths") or {}).values():
                for method in HTTP_METHODS:
                    if isinstance(item.get(method), dict):
                        item[method].setdefault("security", doc["security"])
    combined["components"] = {kind: dict(sorted(values.items())) for kind, values in components.items()}
    return combined
