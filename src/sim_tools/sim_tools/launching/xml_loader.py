"""Reads ROS 2 launch XML (<launch>, <arg>, <node>, <param> (value or from= a params file),
<remap>, <env>, <include>, <group>, <push-ros-namespace>, <let>, <set_env>) into a
LaunchDescription. An element or attribute this runner does not know is an error that names
the file and line, as `ros2 launch` does, so a file never half-runs or silently drops a
setting (a typo, `<group ns=...>`)."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from xml.parsers import expat

from sim_tools.launching.description import LaunchDescription, NodeAction
from sim_tools.launching.substitutions import SubstitutionError, substitute

_TRUE = {"true", "1", "yes"}
_CONDITIONS = frozenset({"if", "unless"})
ATTRIBUTES: dict[str, frozenset[str]] = {  # per element, what this runner reads
    "launch": frozenset({"version"}),
    "arg": frozenset({"name", "default", "description"}) | _CONDITIONS,
    "let": frozenset({"name", "value"}) | _CONDITIONS,
    "node": frozenset({"pkg", "exec", "name", "namespace", "args", "on_exit", "output", "respawn",
                       "respawn_delay"}) | _CONDITIONS,
    "executable": frozenset({"cmd", "name", "args", "on_exit", "output", "respawn", "respawn_delay"}) | _CONDITIONS,
    "set_parameter": frozenset({"name", "value"}) | _CONDITIONS,
    "param": frozenset({"name", "value", "from"}),
    "remap": frozenset({"from", "to"}),
    "env": frozenset({"name", "value"}),
    "set_env": frozenset({"name", "value"}) | _CONDITIONS,
    "include": frozenset({"file"}) | _CONDITIONS,
    "include/arg": frozenset({"name", "value"}),
    "group": frozenset({"scoped", "forwarding"}) | _CONDITIONS,
    "push-ros-namespace": frozenset({"namespace"}),
}


class LaunchFileError(ValueError):
    """The launch file uses something this runner does not support, or is malformed."""


def load_launch_file(path: str, args: Mapping[str, str] | None = None) -> LaunchDescription:
    description = LaunchDescription()
    _load(os.path.abspath(path), dict(args or {}), "", description, overrides=dict(args or {}))
    return description


_LINES: dict[int, int] = {}  # id(element) -> its line, for error messages


def _parse(data: bytes) -> ET.Element:
    """ElementTree keeps no line numbers: build the tree from expat's events, noting lines."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        _LINES[id(builder.start(tag, attrs))] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.Parse(data, True)
    return builder.close()


def _where(path: str, el: ET.Element) -> str:
    line = _LINES.get(id(el))
    return f"{path}:{line}" if line else path


def _load(path: str, given: dict[str, str], namespace: str, out: LaunchDescription,
          overrides: dict[str, str]) -> None:
    try:
        with open(path, "rb") as f:
            data = f.read()
        root = _parse_yaml(data, path) if path.endswith((".yaml", ".yml")) else _parse(data)
    except (OSError, expat.ExpatError) as exc:
        raise LaunchFileError(f"{path}: {exc}") from exc
    if root.tag != "launch":
        raise LaunchFileError(f"{path}: root element is <{root.tag}>, expected <launch>")
    _check_attributes(root, path, "launch")
    scope = dict(given)
    _children(root, path, scope, namespace, out, overrides)


def _parse_yaml(data: bytes, path: str) -> ET.Element:
    """A YAML launch file as the XML elements it stands for: `launch:` holds a list of
    one-key mappings (`- node: {...}`); scalar values are attributes, a list under a key is
    that many child elements of that tag (`param:`, `remap:`, `arg:`), `children:` holds a
    group's elements."""
    import yaml

    try:
        document = yaml.safe_load(data)
    except yaml.YAMLError as exc:
        raise LaunchFileError(f"{path}: {exc}") from exc
    if not isinstance(document, dict) or "launch" not in document:
        raise LaunchFileError(f"{path}: a YAML launch file holds `launch:` with a list of actions")

    def element(tag: str, body: object, where: str) -> ET.Element:
        el = ET.Element(tag)
        if body is None:
            return el
        if not isinstance(body, dict):
            raise LaunchFileError(f"{path}: {where}: <{tag}> needs a mapping, got {type(body).__name__}")
        for key, value in body.items():
            if key == "children":
                el.extend(items(value, f"{where}.children"))
            elif isinstance(value, list):
                for i, child in enumerate(value):
                    el.append(element(str(key), child, f"{where}.{key}[{i}]"))
            elif isinstance(value, dict):
                el.append(element(str(key), value, f"{where}.{key}"))
            else:
                el.set(str(key), str(value).lower() if isinstance(value, bool) else str(value))
        return el

    def items(actions: object, where: str) -> list[ET.Element]:
        if not isinstance(actions, list):
            raise LaunchFileError(f"{path}: {where} must be a list of actions")
        out = []
        for i, action in enumerate(actions):
            if not isinstance(action, dict) or len(action) != 1:
                raise LaunchFileError(f"{path}: {where}[{i}] must be one action (`- node: ...`)")
            ((tag, body),) = action.items()
            out.append(element(str(tag), body, f"{where}[{i}]"))
        return out

    root = ET.Element("launch")
    root.extend(items(document["launch"], "launch"))
    return root


def declared_arguments(path: str) -> list[tuple[str, str | None, str]]:
    """The file's own <arg>s (name, default, description), as written (for --show-args)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        root = _parse_yaml(data, path) if path.endswith((".yaml", ".yml")) else _parse(data)
    except (OSError, expat.ExpatError) as exc:
        raise LaunchFileError(f"{path}: {exc}") from exc
    return [(a.get("name") or "", a.get("default"), a.get("description") or "") for a in root.iter("arg")
            if a in list(root)]


def _check_attributes(el: ET.Element, path: str, kind: str) -> None:
    allowed = ATTRIBUTES.get(kind)
    if allowed is None:
        return
    unknown = sorted(set(el.attrib) - allowed)
    if unknown:
        raise LaunchFileError(f"{_where(path, el)}: <{el.tag}> has no attribute {unknown[0]!r} "
                              f"(it takes {', '.join(sorted(allowed))})")


def _children(parent: ET.Element, path: str, scope: dict[str, str], namespace: str,
              out: LaunchDescription, overrides: dict[str, str]) -> None:
    here = os.path.dirname(path)

    def sub(text: str | None) -> str:
        return substitute(text or "", scope, this_dir=here, this_file=path)

    for el in parent:
        if not isinstance(el.tag, str):
            continue  # comments
        try:
            _action(el, path, scope, namespace, out, overrides, sub)
        except SubstitutionError as exc:  # where it happened, as for any other mistake in the file
            raise LaunchFileError(f"{_where(path, el)}: {exc}") from None


def _action(el: ET.Element, path: str, scope: dict[str, str], namespace: str, out: LaunchDescription,
            overrides: dict[str, str], sub: Callable[[str | None], str]) -> None:
    _check_attributes(el, path, el.tag)
    if _skipped(el, sub):
        return
    if el.tag == "arg":
        name = el.get("name") or ""
        if name not in scope:
            if el.get("default") is None:
                raise LaunchFileError(f"{_where(path, el)}: argument {name!r} needs a value")
            scope[name] = sub(el.get("default"))
    elif el.tag == "let":
        scope[el.get("name") or ""] = sub(el.get("value"))
    elif el.tag == "node":
        node = _node(el, path, sub, namespace)
        node.parameters = {**scope_parameters(scope), **node.parameters}
        out.nodes.append(node)
    elif el.tag == "executable":
        out.nodes.append(_executable(el, path, sub))
    elif el.tag == "set_parameter":  # for every node after it in this scope
        scope[f"{_PARAM_PREFIX}{sub(el.get('name'))}"] = sub(el.get("value"))
    elif el.tag == "set_env":
        out.env[sub(el.get("name"))] = sub(el.get("value"))
    elif el.tag == "include":
        for a in el:
            if isinstance(a.tag, str) and a.tag != "arg":
                raise LaunchFileError(f"{_where(path, a)}: unsupported element <{a.tag}> in <include>")
            if isinstance(a.tag, str):
                _check_attributes(a, path, "include/arg")
        inner = {a.get("name") or "": sub(a.get("value")) for a in el.findall("arg")}
        _load(sub(el.get("file")), inner, namespace, out, overrides)
    elif el.tag == "group":
        inner_ns = namespace
        push = el.find("push-ros-namespace")
        if push is not None:
            inner_ns = _join_ns(namespace, sub(push.get("namespace")))
        _children(el, path, dict(scope), inner_ns, out, overrides)
    elif el.tag == "push-ros-namespace":
        return  # handled by its group
    else:
        raise LaunchFileError(f"{_where(path, el)}: unsupported element <{el.tag}>")


_PARAM_PREFIX = "\x00param:"  # <set_parameter> values ride in the scope, out of $(var)'s reach


def scope_parameters(scope: Mapping[str, str]) -> dict[str, str]:
    return {k[len(_PARAM_PREFIX):]: v for k, v in scope.items() if k.startswith(_PARAM_PREFIX)}


def _executable(el: ET.Element, path: str, sub) -> NodeAction:
    import shlex

    command = shlex.split(sub(el.get("cmd"))) + sub(el.get("args")).split()
    if not command:
        raise LaunchFileError(f"{_where(path, el)}: <executable> needs cmd")
    return NodeAction(package="", executable=command[0], command=command, name=sub(el.get("name")),
                      shutdown_on_exit=sub(el.get("on_exit")) == "shutdown",
                      respawn=_flag(el, "respawn", path, sub))


_FALSE = {"false", "0", "no", ""}


def _flag(el: ET.Element, attribute: str, path: str, sub) -> bool:
    """A boolean attribute as ROS 2 launch reads it; anything but true/false is refused
    (respawn="ture" would otherwise quietly mean false)."""
    value = sub(el.get(attribute)).strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise LaunchFileError(f"{_where(path, el)}: {attribute}={value!r} is neither true nor false")


def _skipped(el: ET.Element, sub) -> bool:
    cond_if, cond_unless = el.get("if"), el.get("unless")
    if cond_if is not None and sub(cond_if).lower() not in _TRUE:
        return True
    return cond_unless is not None and sub(cond_unless).lower() in _TRUE


def _node(el: ET.Element, path: str, sub, namespace: str) -> NodeAction:
    pkg, exe = sub(el.get("pkg")), sub(el.get("exec"))
    if not pkg or not exe:
        raise LaunchFileError(f"{_where(path, el)}: <node> needs pkg and exec")
    respawn_delay = sub(el.get("respawn_delay")) or "0"
    try:
        delay = float(respawn_delay)
    except ValueError:
        raise LaunchFileError(f"{_where(path, el)}: respawn_delay {respawn_delay!r} is not a number") from None
    node = NodeAction(package=pkg, executable=exe, name=sub(el.get("name")),
                      namespace=_join_ns(namespace, sub(el.get("namespace"))),
                      arguments=sub(el.get("args")).split(),
                      shutdown_on_exit=sub(el.get("on_exit")) == "shutdown",
                      respawn=_flag(el, "respawn", path, sub), respawn_delay=max(0.0, delay))
    for child in el:
        if not isinstance(child.tag, str):
            continue
        _check_attributes(child, path, child.tag)
        if child.tag == "param":
            if child.get("from") is not None:
                params_file = sub(child.get("from"))
                if not os.path.isfile(params_file):
                    raise LaunchFileError(f"{_where(path, child)}: params file {params_file!r} not found")
                node.params_files.append(params_file)
            elif child.get("name") is None:
                raise LaunchFileError(f"{_where(path, child)}: <param> needs name and value, or from")
            else:
                node.parameters[sub(child.get("name"))] = sub(child.get("value"))
        elif child.tag == "remap":
            node.remappings.append((sub(child.get("from")), sub(child.get("to"))))
        elif child.tag == "env":
            node.env[sub(child.get("name"))] = sub(child.get("value"))
        else:
            raise LaunchFileError(f"{_where(path, child)}: unsupported element <{child.tag}> in <node>")
    return node


def _join_ns(outer: str, inner: str) -> str:
    if not inner:
        return outer
    if inner.startswith("/"):
        return inner
    return "/" + "/".join(p for p in (outer.strip("/"), inner.strip("/")) if p)
