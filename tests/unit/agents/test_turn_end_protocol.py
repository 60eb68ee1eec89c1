"""How a chat turn ends is stated once: in the system prompt's <turn_end> (a call with `final` and its
note, or message_notify_user, or message_ask_user). Everything else the model reads states facts: every
tool description, every argument description, every result template and error a tool writes, the
executor's own notes, the <user_data> block. An instruction about ending the turn or delivering found
anywhere else is a second statement of the protocol, and second statements contradicted the first (a
workout whose `final` was cancelled told the model "You MUST now call message_notify_user"; a tool
that can finish said to deliver with message_notify_user; the prompt said both "go straight to the
result" and "first reply should be brief, acknowledging").

The texts are read as the model gets them: the prompt file, the tool definitions as sent, and the
string literals of the code that writes results, errors and the user-data block (docstrings and the
words a user reads, `say`, aside). `conflicts()` lists what breaks the rule; run against a checkout
of an older tree (`PYTHONPATH=<tree>/layers/core`), it counts what that tree had."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trainer
from trainer.chat.agent import CHAT
from trainer.store.prompt_files import read_prompt_files

PACKAGE = Path(trainer.__file__).parent
RESULT_MODULES = (
    *sorted((PACKAGE / "tools").glob("*.py")),
    PACKAGE / "programs" / "tools.py",
    PACKAGE / "agents" / "tools.py",
    PACKAGE / "sources" / "user_data.py",
)
"""The code that writes what the model reads back: tool results and errors, the executor's notes, the
user-data block."""
USER_FACING = frozenset({"say"})
"""Methods whose words the user reads (the closing reply), not the model."""
REPLY_TOOLS = ("message_notify_user", "message_ask_user", "idle")


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    why: str


RULES = (
    Rule(
        "reply order",
        re.compile(
            r"\b(?:call|use|deliver\w*|send|show\w*|give)\b[^.\n]{0,60}\b(?:message_notify_user|"
            r"message_ask_user|idle)\b|\bwith (?:message_notify_user|message_ask_user)\b"
            r"|(?-i:\bMUST\b|IMPORTANT:)",
            re.IGNORECASE,
        ),
        "tells the model which reply tool to call or that it must: the protocol's job",
    ),
    Rule(
        "final order",
        re.compile(r"\bfinal:\s*true\b[^.\n]{0,40}\b(?:deliver|end)|\bpass final\b", re.IGNORECASE),
        "tells the model when to pass final: the protocol's job",
    ),
    Rule(
        "reply first",
        re.compile(
            r"\b(?:first|initial) (?:reply|message|response)\b|\breply immediately\b|"
            r"\bgo straight to the result\b",
            re.IGNORECASE,
        ),
        "orders a message before or instead of the work: the protocol says how a turn ends, once",
    ),
    Rule(
        "per turn",
        re.compile(r"\b(?:one|once)\b[^.\n]{0,30}\bper turn\b", re.IGNORECASE),
        "asks for something every turn, which a final call leaves no room for",
    ),
    Rule(
        "fetch first",
        re.compile(r"\b(?:check|fetch|load|read)\b[^.\n]{0,50}\bfirst\b[^.\n]{0,10}\(?fetch_data", re.I),
        "sends the model to fetch_data unconditionally, where the prompt says only what is missing",
    ),
)
ONE_CALL = re.compile(r"\bone tool call per (?:iteration|step)\b|\bexactly one tool call\b", re.IGNORECASE)
"""'One tool call per iteration': the API enforces it (parallel tool use off); the prompt says it at
most once."""


@dataclass(frozen=True)
class Conflict:
    rule: str
    where: str
    text: str


def _sections(prompt: str) -> list[tuple[str, str]]:
    """(tag, body) of the prompt's top-level XML sections; text outside them is tagged ''."""
    found: list[tuple[str, str]] = []
    rest = prompt
    for match in re.finditer(r"<(\w+)>\n?(.*?)</\1>", prompt, re.DOTALL):
        found.append((match.group(1), match.group(2)))
        rest = rest.replace(match.group(0), "")
    return [("", rest), *found]


def _protocol_home(sections: list[tuple[str, str]]) -> str:
    """The section that states the protocol: <turn_end>, else the first that speaks of `final`."""
    tags = [tag for tag, _ in sections]
    if "turn_end" in tags:
        return "turn_end"
    return next((tag for tag, body in sections if re.search(r"\bfinal\b", body)), "")


def prompt_texts(prompt: str) -> Iterator[tuple[str, str]]:
    sections = _sections(prompt)
    home = _protocol_home(sections)
    for tag, body in sections:
        if tag != home:
            yield f"chat.md <{tag}>", body


def definition_texts(definitions: list[dict[str, object]]) -> Iterator[tuple[str, str]]:
    """Descriptions of every tool and argument, the reply tools' own aside (they are the protocol's
    ends: what they do is theirs to say)."""

    def walk(node: object, where: str) -> Iterator[tuple[str, str]]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description" and isinstance(value, str):
                    yield where, value
                else:
                    yield from walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for item in node:
                yield from walk(item, where)

    for definition in definitions:
        name = str(definition["name"])
        if name in REPLY_TOOLS:
            continue
        yield f"{name} description", str(definition["description"])
        yield from walk(definition["input_schema"], name)


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        if isinstance(node, ast.ClassDef | ast.Module):  # attribute docstrings: a string after a line
            for previous, statement in zip(node.body, node.body[1:], strict=False):
                documents = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                if documents and not isinstance(previous, ast.Expr):
                    ids.add(id(statement.value))
    return ids


def code_texts(path: Path) -> Iterator[tuple[str, str]]:
    """The string literals of a module the model reads back (f-strings with their holes as '{}'),
    docstrings and the `say` methods' words aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in USER_FACING:
            skipped.update(id(n) for n in ast.walk(node))
    where = str(path.relative_to(PACKAGE))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(v) for v in node.values)
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            yield where, str(text)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield where, node.value


def conflicts(prompt: str, definitions: list[dict[str, object]], modules: tuple[Path, ...]) -> list[Conflict]:
    found: list[Conflict] = []
    seen: set[tuple[str, str]] = set()
    elsewhere = [*definition_texts(definitions), *(text for path in modules for text in code_texts(path))]
    for where, text in [*prompt_texts(prompt), *elsewhere]:
        for rule in RULES:
            # a description is read once, whether found in the definitions or in its module's code
            if (match := rule.pattern.search(text)) and (rule.name, text) not in seen:
                seen.add((rule.name, text))
                found.append(Conflict(rule.name, where, match.group(0)))
    statements = [
        m.group(0) for _, text in [("chat.md", prompt), *elsewhere] for m in ONE_CALL.finditer(text)
    ]
    found.extend(Conflict("said again", "one tool call per iteration", s) for s in statements[1:])
    return found


def current_conflicts() -> list[Conflict]:
    return conflicts(read_prompt_files()["chat"], CHAT.toolset.definitions(), RESULT_MODULES)


def test_the_turn_end_protocol_is_stated_once_and_nothing_contradicts_it() -> None:
    found = current_conflicts()
    assert not found, "\n".join(f"{c.rule}: {c.where}: {c.text!r}" for c in found)


def test_the_prompt_states_the_protocol_in_turn_end() -> None:
    turn_end = dict(_sections(read_prompt_files()["chat"]))["turn_end"]
    for end in ("final: true", "message_notify_user", "message_ask_user", "note"):
        assert end in turn_end


# What the chat agent read before the protocol was stated once (tools, results, the prompt, the
# user-data block): each is a conflict the rules name.
EARLIER = [
    ("reply order", "IMPORTANT: You MUST now call message_notify_user with artifact_id={} to show it"),
    ("reply order", "Deliver the updated workout with message_notify_user and the workout's artifact_id."),
    ("fetch first", "Replace the user's category goals. Check the current goals first (fetch_data)."),
    ("reply first", "First reply should be brief, acknowledging the request"),
    ("per turn", "ask for ONE of these per turn with message_ask_user, the next being:"),
    ("final order", "Finish: when a call completes what the user asked, pass final: true with it"),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "text"), EARLIER, ids=[t[:40] for _, t in EARLIER])
def test_the_rules_find_the_contradictions_the_agent_was_given(rule: str, text: str) -> None:
    hit = {r.name for r in RULES if r.pattern.search(text)}
    assert rule in hit


def test_saying_one_call_per_iteration_twice_is_a_conflict() -> None:
    prompt = "<a>\nRespond with exactly ONE tool call per iteration\n</a>\n<b>\nexactly one tool call\n</b>"
    assert [c.rule for c in conflicts(prompt, [], ())].count("said again") == 1


def test_a_result_that_cancels_final_says_no_order_after_it() -> None:
    """The executor's 'Not final' note and a result's delivery note are facts: read together, the
    model is told what to fix and that the workout is not shown yet, never which tool to call."""
    body = "\n".join(
        text for path, text in code_texts(PACKAGE / "agents" / "tools.py") if "Not final" in text
    )
    assert body and not any(rule.pattern.search(body) for rule in RULES)
