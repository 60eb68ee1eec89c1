"""The DynamoDB operations code can call, read from its source (ast), and the IAM actions they need.

- A call is `<...client>.<operation>(...)` (`self._client.put_item(`, `self.client.get_item(`) or
  `<...client>.get_paginator("<operation>")`, where `<operation>` is a method of boto3's DynamoDB client
  (botocore's service model, offline).
- The IAM action of an operation is `dynamodb:<OperationName>`, except TransactWriteItems (authorised
  per entry: Put, Update, Delete, ConditionCheck -> PutItem, UpdateItem, DeleteItem,
  ConditionCheckItem; the entries are the dict keys of those names in the calling module) and
  TransactGetItems (GetItem). The PartiQL operations have no mapping here: reading one fails.
- `IndexName` given as a literal (a dict key or a keyword) is a Query on that index.

`reachable(adapter, methods)` follows `self.<method>` references inside one class, so it is what a
set of entry methods *can* reach, every branch included: an upper bound of what one run calls. An
adapter whose class hands work to parts of its own package (the adapter's path is the package) is
followed through the package's functions its code calls by name and the package's methods it calls on
`self` (`self._log.commit(`) or on a parameter typed with a class of the package (`items: TableItems`),
matched by method name: a wider upper bound.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

TRANSACTION_ENTRY_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}
PARTIQL_OPERATIONS = frozenset({"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"})


@cache
def client_operations() -> dict[str, str]:
    """boto3 DynamoDB client method -> API operation (`transact_write_items` -> `TransactWriteItems`)."""
    from botocore import xform_name
    from botocore.session import get_session

    model = get_session().get_service_model("dynamodb")
    return {xform_name(name): name for name in model.operation_names}


def _receiver(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _literal(node: ast.expr) -> str:
    """A string constant's value; "" for anything else."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


@dataclass
class Calls:
    """What one piece of code calls: operations, indexes queried, transaction entry kinds."""

    operations: set[str] = field(default_factory=set)
    indexes: set[str] = field(default_factory=set)
    transaction_entries: set[str] = field(default_factory=set)

    def __ior__(self, other: Calls) -> Calls:
        self.operations |= other.operations
        self.indexes |= other.indexes
        self.transaction_entries |= other.transaction_entries
        return self

    def iam_actions(self) -> set[str]:
        actions: set[str] = set()
        for operation in self.operations:
            assert operation not in PARTIQL_OPERATIONS, f"{operation}: map its PartiQL actions here first"
            if operation == "TransactWriteItems":
                assert self.transaction_entries, "a transaction whose entries were not found"
                actions |= {TRANSACTION_ENTRY_ACTIONS[kind] for kind in self.transaction_entries}
            elif operation == "TransactGetItems":
                actions.add("dynamodb:GetItem")
            else:
                actions.add(f"dynamodb:{operation}")
        return actions


def calls_in(tree: ast.AST, transaction_entries: Iterable[str] = ()) -> Calls:
    """The DynamoDB calls written in `tree` (transaction entries come from the enclosing module)."""
    operations = client_operations()
    found = Calls()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            on_client = _receiver(node.func.value).endswith("client")
            method, first = node.func.attr, node.args[0] if node.args else None
            if on_client and method in operations:
                found.operations.add(operations[method])
            if on_client and method == "get_paginator" and isinstance(first, ast.Constant):
                found.operations.add(operations[str(first.value)])
            found.indexes |= {_literal(k.value) for k in node.keywords if k.arg == "IndexName"} - {""}
        if isinstance(node, ast.Dict):
            keys = [_literal(key) if key is not None else "" for key in node.keys]
            found.indexes |= {_literal(v) for k, v in zip(keys, node.values, strict=True) if k == "IndexName"}
            found.indexes.discard("")
    if "TransactWriteItems" in found.operations:
        found.transaction_entries |= set(transaction_entries)
    return found


def transaction_entry_kinds(tree: ast.AST) -> set[str]:
    """Dict keys naming a TransactWriteItems entry kind (`{"Put": {...}}`) anywhere in `tree`."""
    return {
        str(key.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and key.value in TRANSACTION_ENTRY_ACTIONS
    }


@dataclass(frozen=True)
class Adapter:
    """A class that calls DynamoDB on one table: where it is (its module, or the package whose modules
    hold its parts) and which table (by template logical id)."""

    path: Path
    class_name: str
    table: str


@cache
def _methods(adapter: Adapter) -> dict[str, tuple[Calls, frozenset[str]]]:
    """Per method of the class: its own DynamoDB calls and the `self.<method>`s it refers to."""
    if adapter.path.is_dir():
        return _package_functions(adapter)
    module = ast.parse(adapter.path.read_text(encoding="utf-8"))
    entries = transaction_entry_kinds(module)
    (cls,) = (n for n in module.body if isinstance(n, ast.ClassDef) and n.name == adapter.class_name)
    functions = [n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    names = {f.name for f in functions}
    methods = {}
    for function in functions:
        referred = frozenset(
            node.attr
            for node in ast.walk(function)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and node.attr in names
        )
        methods[function.name] = (calls_in(function, entries), referred)
    return methods


def _package_functions(adapter: Adapter) -> dict[str, tuple[Calls, frozenset[str]]]:
    """Per function and method of the package: its own DynamoDB calls and the package's functions and
    methods it calls (see the module docstring). The class's methods are keyed by their names, every
    other function by `module:Class.name` or `module:name`."""
    found: list[tuple[str, str, str, ast.FunctionDef | ast.AsyncFunctionDef, set[str]]] = []
    classes: set[str] = set()
    for path in sorted(adapter.path.glob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        entries = transaction_entry_kinds(module)
        for node in module.body:
            owner = node.name if isinstance(node, ast.ClassDef) else ""
            classes |= {owner} - {""}
            members = node.body if isinstance(node, ast.ClassDef) else [node]
            for function in members:
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                key = (
                    function.name
                    if owner == adapter.class_name
                    else f"{path.stem}:{owner + '.' if owner else ''}{function.name}"
                )
                found.append((key, owner, function.name, function, entries))
    methods: dict[str, set[str]] = {}
    functions: dict[str, set[str]] = {}
    for key, owner, name, _, _ in found:
        (methods if owner else functions).setdefault(name, set()).add(key)
    result = {}
    for key, _, _, function, entries in found:
        typed = {
            arg.arg
            for arg in [*function.args.args, *function.args.kwonlyargs]
            if isinstance(arg.annotation, ast.Name) and arg.annotation.id in classes
        }
        referred = {k for n in ast.walk(function) if isinstance(n, ast.Name) for k in functions.get(n.id, ())}
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and _root(node) in typed | {"self"}:
                referred |= methods.get(node.attr, set())
        result[key] = (calls_in(function, entries), frozenset(referred))
    return result


def _root(node: ast.expr) -> str:
    """The name an attribute chain starts from (`self` for `self._log.commit`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def method_names(adapter: Adapter) -> set[str]:
    return {name for name in _methods(adapter) if ":" not in name}


def reachable(adapter: Adapter, entry_methods: Iterable[str]) -> Calls:
    """Every DynamoDB call the entry methods can reach through the class's own methods."""
    methods = _methods(adapter)
    pending = list(entry_methods)
    unknown = set(pending) - set(methods)
    assert not unknown, f"{adapter.class_name} has no method(s) {sorted(unknown)}"
    seen: set[str] = set()
    found = Calls()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        calls, referred = methods[name]
        found |= calls
        pending.extend(referred)
    return found


def port_calls(paths: Iterable[Path], receiver: str) -> set[str]:
    """The methods called on a receiver named `receiver` (`store.read_events(`, `deps.store.x(`) in
    these modules: the part of a port a code path uses."""
    called: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and _receiver(node.func.value) == receiver
            ):
                called.add(node.func.attr)
    return called
