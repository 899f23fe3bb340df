"""Reads ROS 2 launch XML (<launch>, <arg>, <node>, <param>, <remap>, <include>, <group>,
<push-ros-namespace>, <let>) into a LaunchDescription. Anything else is an error that names
the element and the file, so a file never half-runs."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from sim_master.launching.description import LaunchDescription, NodeAction
from sim_master.launching.substitutions import substitute

_TRUE = {"true", "1", "yes"}


class LaunchFileError(ValueError):
    """The launch file uses something this runner does not support, or is malformed."""


def load_launch_file(path: str, args: Mapping[str, str] | None = None) -> LaunchDescription:
    description = LaunchDescription()
    _load(os.path.abspath(path), dict(args or {}), "", description, overrides=dict(args or {}))
    return description


def _load(path: str, given: dict[str, str], namespace: str, out: LaunchDescription,
          overrides: dict[str, str]) -> None:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise LaunchFileError(f"{path}: {exc}") from exc
    if root.tag != "launch":
        raise LaunchFileError(f"{path}: root element is <{root.tag}>, expected <launch>")
    scope = dict(given)
    _children(root, path, scope, namespace, out, overrides)


def _children(parent: ET.Element, path: str, scope: dict[str, str], namespace: str,
              out: LaunchDescription, overrides: dict[str, str]) -> None:
    here = os.path.dirname(path)

    def sub(text: str | None) -> str:
        return substitute(text or "", scope, this_dir=here)

    for el in parent:
        if not isinstance(el.tag, str):
            continue  # comments
        if _skipped(el, sub):
            continue
        if el.tag == "arg":
            name = el.get("name") or ""
            if name not in scope:
                if el.get("default") is None:
                    raise LaunchFileError(f"{path}: argument {name!r} needs a value")
                scope[name] = sub(el.get("default"))
        elif el.tag == "let":
            scope[el.get("name") or ""] = sub(el.get("value"))
        elif el.tag == "node":
            out.nodes.append(_node(el, path, sub, namespace))
        elif el.tag == "include":
            inner = {a.get("name") or "": sub(a.get("value")) for a in el.findall("arg")}
            _load(sub(el.get("file")), inner, namespace, out, overrides)
        elif el.tag == "group":
            inner_ns = namespace
            push = el.find("push-ros-namespace")
            if push is not None:
                inner_ns = _join_ns(namespace, sub(push.get("namespace")))
            _children(el, path, dict(scope), inner_ns, out, overrides)
        elif el.tag == "push-ros-namespace":
            continue  # handled by its group
        else:
            raise LaunchFileError(f"{path}: unsupported element <{el.tag}>")


def _skipped(el: ET.Element, sub) -> bool:
    cond_if, cond_unless = el.get("if"), el.get("unless")
    if cond_if is not None and sub(cond_if).lower() not in _TRUE:
        return True
    return cond_unless is not None and sub(cond_unless).lower() in _TRUE


def _node(el: ET.Element, path: str, sub, namespace: str) -> NodeAction:
    pkg, exe = sub(el.get("pkg")), sub(el.get("exec"))
    if not pkg or not exe:
        raise LaunchFileError(f"{path}: <node> needs pkg and exec")
    node = NodeAction(package=pkg, executable=exe, name=sub(el.get("name")),
                      namespace=_join_ns(namespace, sub(el.get("namespace"))),
                      arguments=sub(el.get("args")).split(),
                      shutdown_on_exit=sub(el.get("on_exit")) == "shutdown")
    for child in el:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "param":
            if child.get("name") is None:
                raise LaunchFileError(f"{path}: <param> without name (files are not supported)")
            node.parameters[sub(child.get("name"))] = sub(child.get("value"))
        elif child.tag == "remap":
            node.remappings.append((sub(child.get("from")), sub(child.get("to"))))
        elif child.tag == "env":
            node.env[sub(child.get("name"))] = sub(child.get("value"))
        else:
            raise LaunchFileError(f"{path}: unsupported element <{child.tag}> in <node>")
    return node


def _join_ns(outer: str, inner: str) -> str:
    if not inner:
        return outer
    if inner.startswith("/"):
        return inner
    return "/" + "/".join(p for p in (outer.strip("/"), inner.strip("/")) if p)
