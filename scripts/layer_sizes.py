"""Sizes of what `sam build` made: the core layer and each function, unzipped and zipped, and each
function with its layers against Lambda's limit of 250 MB unzipped (262,144,000 bytes, 250 MiB), which
counts a function's code and all its layers together.

    .venv/bin/python scripts/layer_sizes.py [BUILD_DIR]     # default .aws-sam/build

`make build` runs it after `sam build`. It exits 1 when a function with its layers is over the limit
(a deploy would be refused), or when a built layer holds development code (the `trainer_dev` package,
a `trainer/local` stack or a `trainer/cli.py`: they live in dev/, outside the layer's ContentUri).
Layers named by ARN (the Lambda Web Adapter) are not in the build: they are listed, not counted.
"Zipped" is a deflate archive of the directory, as `sam deploy` uploads it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from trainer.store.dynamo_tables import parse_template

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BUILD_DIR = REPO / ".aws-sam" / "build"
UNZIPPED_LIMIT = 262_144_000
MIB = 1024 * 1024
DEVELOPMENT_PATHS = ("python/trainer_dev", "python/trainer/local", "python/trainer/cli.py")
"""Where development code would sit in a built layer (`/opt/python/...`); none of it may ship."""


@dataclass(frozen=True)
class Artifact:
    name: str
    kind: str
    unzipped: int
    zipped: int
    files: int = 0
    modules: int = 0
    compiled: int = 0
    """Python sources, and how many of them have bytecode for this interpreter's version beside them."""


@dataclass(frozen=True)
class FunctionTotal:
    name: str
    unzipped: int
    """The function's code and the layers built with it."""
    layers: tuple[str, ...]
    external_layers: tuple[str, ...]


@dataclass(frozen=True)
class BuildSizes:
    artifacts: list[Artifact]
    functions: list[FunctionTotal]
    limit: int = UNZIPPED_LIMIT
    development_code: tuple[str, ...] = ()
    """`<Layer>/<path>` of each development path found in a built layer."""

    @property
    def over_limit(self) -> list[FunctionTotal]:
        return [f for f in self.functions if f.unzipped > self.limit]


def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file() and not p.is_symlink())


def unzipped_size(directory: Path) -> int:
    return sum(p.stat().st_size for p in _files(directory))


class _CountingSink:
    """A write-only stream that keeps nothing but the number of bytes written."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        pass


def zipped_size(directory: Path) -> int:
    sink = _CountingSink()
    with zipfile.ZipFile(cast(IO[bytes], sink), "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in _files(directory):
            archive.write(path, path.relative_to(directory).as_posix())
    return sink.size


def bytecode_coverage(directory: Path) -> tuple[int, int]:
    """(sources, sources with a .pyc in __pycache__ for this Python version)."""
    sources = [p for p in _files(directory) if p.suffix == ".py"]
    return len(sources), sum(1 for p in sources if Path(importlib.util.cache_from_source(str(p))).is_file())


def _artifact(name: str, kind: str, directory: Path) -> Artifact:
    modules, compiled = bytecode_coverage(directory)
    files = len(_files(directory))
    return Artifact(name, kind, unzipped_size(directory), zipped_size(directory), files, modules, compiled)


def development_code(layer_dir: Path) -> list[str]:
    """The development paths (DEVELOPMENT_PATHS) present in a built layer."""
    return [path for path in DEVELOPMENT_PATHS if (layer_dir / path).exists()]


def _ref(value: Any) -> str | None:
    if isinstance(value, dict) and set(value) == {"Ref"} and isinstance(value["Ref"], str):
        return value["Ref"]
    return None


def _layer_name(value: Any) -> str:
    """An ARN's last two parts (`LambdaAdapterLayerX86:27`), from a string or an Fn::Sub."""
    text = value.get("Fn::Sub", value) if isinstance(value, dict) else value
    text = text[0] if isinstance(text, list) else text
    return ":".join(str(text).split(":")[-2:])


def measure(build_dir: Path, *, limit: int = UNZIPPED_LIMIT) -> BuildSizes:
    """Every function and layer of the built template, measured."""
    template = parse_template((build_dir / "template.yaml").read_text(encoding="utf-8"))
    resources: dict[str, Any] = template["Resources"]
    global_layers = list((template.get("Globals") or {}).get("Function", {}).get("Layers") or [])
    artifacts: dict[str, Artifact] = {}
    development: list[str] = []
    for name, resource in resources.items():
        if resource.get("Type") == "AWS::Serverless::LayerVersion":
            layer_dir = build_dir / str(resource["Properties"]["ContentUri"])
            artifacts[name] = _artifact(name, "layer", layer_dir)
            development += [f"{name}/{path}" for path in development_code(layer_dir)]
    functions = []
    for name, resource in resources.items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        properties = resource.get("Properties") or {}
        artifacts[name] = _artifact(name, "function", build_dir / str(properties["CodeUri"]))
        layers = [*global_layers, *(properties.get("Layers") or [])]
        built = tuple(ref for ref in map(_ref, layers) if ref in artifacts)
        external = tuple(_layer_name(layer) for layer in layers if _ref(layer) not in artifacts)
        total = artifacts[name].unzipped + sum(artifacts[layer].unzipped for layer in built)
        functions.append(FunctionTotal(name, total, built, external))
    ordered = sorted(artifacts.values(), key=lambda a: (a.kind != "layer", a.name))
    return BuildSizes(ordered, functions, limit, tuple(development))


def _size(size: int) -> str:
    return f"{size / MIB:7.1f} MiB" if size >= MIB else f"{size / 1024:7.1f} KiB"


def report(sizes: BuildSizes) -> list[str]:
    lines = [f"{'built':<22} {'unzipped':>12} {'zipped':>12} {'files':>7}   bytecode"]
    for a in sizes.artifacts:
        label = f"{a.name} (layer)" if a.kind == "layer" else a.name
        bytecode = f"{a.compiled}/{a.modules} modules"
        lines.append(f"{label:<22} {_size(a.unzipped)} {_size(a.zipped)} {a.files:>7}   {bytecode}")
    lines.append(f"with layers, against Lambda's {sizes.limit / MIB:.0f} MiB unzipped limit:")
    for function in sizes.functions:
        parts = [function.name, *function.layers]
        extra = (
            f" + {', '.join(function.external_layers)} (not built here)" if function.external_layers else ""
        )
        share = function.unzipped / sizes.limit * 100
        verdict = "OVER THE LIMIT" if function.unzipped > sizes.limit else f"{share:.0f}% of the limit"
        lines.append(f"  {' + '.join(parts)}{extra}: {_size(function.unzipped).strip()}, {verdict}")
    if sizes.development_code:
        lines.append(f"DEVELOPMENT CODE IN A LAYER (it must not ship): {', '.join(sizes.development_code)}")
    return lines


def main(argv: list[str] | None = None, *, limit: int = UNZIPPED_LIMIT) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("build_dir", nargs="?", type=Path, default=DEFAULT_BUILD_DIR)
    args = parser.parse_args(argv)
    if not (args.build_dir / "template.yaml").is_file():
        print(f"no built template in {args.build_dir}: run `make build` first", file=sys.stderr)
        return 2
    sizes = measure(args.build_dir, limit=limit)
    print(os.linesep.join(report(sizes)))
    return 1 if sizes.over_limit or sizes.development_code else 0


if __name__ == "__main__":
    raise SystemExit(main())
