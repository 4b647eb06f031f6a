"""The one reader of case trees in preorder, shared by every tree-shaped proof. Standard library only.

A case tree is a list of nodes in preorder. A node ``{"split": s}`` is followed by its two
subtrees, first the branch where the split's decision is *active* (True), then the one where it is
*inactive* (False); with a ``fix`` callback, a node ``{"fix": ...}`` decides one phase, proved on the node, and is
followed by one subtree; every other node is a leaf. The claim-specific parts are two callbacks:
``split_key(s, dec)`` validates a split (it must not be decided on the branch yet) and returns its
hashable key, and ``refute(node, dec)`` checks a leaf under the decisions of its branch, raising
CheckFailed when it does not refute it; ``fix(node, dec)`` checks a fix node and returns (key, active).

Invariants, checked as the nodes are read (so a tree with missing or extra nodes is refused):

* ``dec`` holds exactly the starting decisions plus one entry per split on the path from the
  root to the node being read; ``trail`` lists those splits, root first.
* ``todo`` holds the subtrees still to read, as (trail length at their split, key, active);
  the last entry is the next node's place. Popping it undoes the splits below that length,
  each undone once, so the walk is linear in the number of nodes.
* The tree is complete exactly when ``todo`` is empty after the last node.
"""

from __future__ import annotations

from .common import CheckFailed


def walk_tree(tree, dec0: dict, split_key, refute, fix=None) -> int:
    """Read a preorder case tree starting from the decisions ``dec0``; return the number of leaves.

    >>> seen = []
    >>> walk_tree([{"split": 0}, {"leaf": 1}, {"leaf": 2}], {}, lambda s, dec: s,
    ...           lambda node, dec: seen.append((node["leaf"], dict(dec))))
    2
    >>> seen
    [(1, {0: True}), (2, {0: False})]
    """
    if not isinstance(tree, list):
        raise CheckFailed("a tree is a list of nodes in preorder")
    dec, trail, leaves = dict(dec0), [], 0
    todo = [(0, None, None)]  # the root
    for node in tree:
        if not todo:
            raise CheckFailed("the tree has nodes after it is complete")
        depth, key, active = todo.pop()
        for old in trail[depth:]:
            del dec[old]
        del trail[depth:]
        if key is not None:
            dec[key] = active
            trail.append(key)
        if isinstance(node, dict) and set(node) == {"split"}:
            key = split_key(node["split"], dec)
            todo += [(len(trail), key, False), (len(trail), key, True)]  # active child first
            continue
        if fix is not None and isinstance(node, dict) and "fix" in node:
            key, active = fix(node, dec)
            todo.append((len(trail), key, active))
            continue
        refute(node, dec)
        leaves += 1
    if todo:
        raise CheckFailed("the tree is incomplete")
    return leaves
