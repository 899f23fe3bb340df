"""BehaviorTree.CPP XML (BTCPP_format 3/4) -> py_trees trees.

Control nodes map to py_trees composites (Sequence, Fallback, ReactiveSequence,
ReactiveFallback, Parallel) and decorators (Inverter, ForceSuccess, ForceFailure,
Repeat, RetryUntilSuccessful); leaves (Action/Condition, or custom tags) are built by
factories registered by name, which receive the node's XML attributes. SubTree nodes are
expanded. Unknown tags are an error naming the tag, so a tree never runs half-built."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import py_trees
from py_trees.behaviour import Behaviour

LeafFactory = Callable[[str, dict[str, str]], Behaviour]


class BehaviorTreeError(ValueError):
    """The XML is malformed or names a node no factory builds."""


class BehaviorTreeFactory:
    def __init__(self) -> None:
        self._leaves: dict[str, LeafFactory] = {}

    def register(self, tag: str, factory: LeafFactory) -> None:
        self._leaves[tag] = factory

    def create_tree(self, xml_text: str, tree_id: str | None = None) -> Behaviour:
        try:
            root = ET.fromstring(xml_text)
        except ET.ParseError as exc:
            raise BehaviorTreeError(f"BT XML: {exc}") from exc
        if root.tag != "root":
            raise BehaviorTreeError(f"BT XML root is <{root.tag}>, expected <root>")
        trees = {t.get("ID", ""): t for t in root.findall("BehaviorTree")}
        main = tree_id or root.get("main_tree_to_execute") or next(iter(trees), "")
        if main not in trees:
            raise BehaviorTreeError(f"no BehaviorTree with ID {main!r} (have: {', '.join(trees)})")
        return self._tree(trees, main, set())

    def _tree(self, trees: dict[str, ET.Element], tree_id: str, stack: set[str]) -> Behaviour:
        if tree_id in stack:
            raise BehaviorTreeError(f"SubTree {tree_id!r} includes itself")
        element = trees[tree_id]
        children = [c for c in element if isinstance(c.tag, str)]
        if len(children) != 1:
            raise BehaviorTreeError(f"BehaviorTree {tree_id!r} must have exactly one root node")
        return self._node(children[0], trees, stack | {tree_id})

    def _node(self, el: ET.Element, trees: dict[str, ET.Element], stack: set[str]) -> Behaviour:
        tag = el.tag
        attrs = dict(el.attrib)
        name = attrs.pop("name", tag)
        kids = [self._node(c, trees, stack) for c in el if isinstance(c.tag, str)]
        if tag in ("Sequence", "SequenceWithMemory"):
            return py_trees.composites.Sequence(name, memory=tag == "SequenceWithMemory", children=kids)
        if tag == "ReactiveSequence":
            return py_trees.composites.Sequence(name, memory=False, children=kids)
        if tag in ("Fallback", "ReactiveFallback"):
            return py_trees.composites.Selector(name, memory=False, children=kids)
        if tag == "Parallel":
            need = int(attrs.get("success_count", attrs.get("success_threshold", len(kids))))
            policy = (py_trees.common.ParallelPolicy.SuccessOnAll() if need >= len(kids)
                      else py_trees.common.ParallelPolicy.SuccessOnOne())
            return py_trees.composites.Parallel(name, policy=policy, children=kids)
        if tag in ("Inverter", "ForceSuccess", "ForceFailure", "Repeat", "RetryUntilSuccessful"):
            if len(kids) != 1:
                raise BehaviorTreeError(f"<{tag}> needs exactly one child")
            child = kids[0]
            if tag == "Inverter":
                return py_trees.decorators.Inverter(name, child)
            if tag == "ForceSuccess":
                return py_trees.decorators.FailureIsSuccess(name, child)
            if tag == "ForceFailure":
                return py_trees.decorators.SuccessIsFailure(name, child)
            if tag == "Repeat":
                return py_trees.decorators.Repeat(name, child, int(attrs.get("num_cycles", "1")))
            return py_trees.decorators.Retry(name, child, int(attrs.get("num_attempts", "1")))
        if tag == "SubTree":
            return self._tree(trees, attrs.get("ID", ""), stack)
        if tag in ("Action", "Condition"):
            tag = attrs.pop("ID", "")
        factory = self._leaves.get(tag)
        if factory is None:
            raise BehaviorTreeError(f"no node type {tag!r} is registered (known: {', '.join(sorted(self._leaves))})")
        return factory(name, attrs)


def tick(tree: Behaviour) -> Any:
    """One tick of a tree; returns its status."""
    tree.tick_once()
    return tree.status
