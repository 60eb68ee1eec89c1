"""scripts/layer_sizes.py on a build directory laid out as `sam build` lays it out, and the build
recipe that compiles what it ships."""

from __future__ import annotations

import py_compile
import re
import zipfile
from pathlib import Path

import pytest

from scripts.layer_sizes import UNZIPPED_LIMIT, main, measure, report, zipped_size

ROOT = Path(__file__).resolve().parents[3]

BUILT_TEMPLATE = """\
Globals:
  Function:
    Runtime: python3.12
    Layers:
    - Ref: CoreLayer
Resources:
  CoreLayer:
    Type: AWS::Serverless::LayerVersion
    Properties:
      ContentUri: CoreLayer
  ApiFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: ApiFunction
      Handler: app.handler
  StreamFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: StreamFunction
      Handler: run.sh
      Layers:
      - Fn::Sub: arn:aws:lambda:${AWS::Region}:753240598075:layer:LambdaAdapterLayerX86:27
  SessionsTable:
    Type: AWS::DynamoDB::Table
"""


@pytest.fixture
def build_dir(tmp_path: Path) -> Path:
    (tmp_path / "template.yaml").write_text(BUILT_TEMPLATE)
    package = tmp_path / "CoreLayer" / "python" / "trainer"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n" * 10_000)
    (package / "data.json").write_text("[" + "0," * 50_000 + "0]")
    py_compile.compile(
        str(package / "__init__.py"), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    (package / "not_compiled.py").write_text("y = 2\n")
    (tmp_path / "ApiFunction").mkdir()
    (tmp_path / "ApiFunction" / "app.py").write_text("def handler(event, context):\n    return {}\n")
    (tmp_path / "StreamFunction").mkdir()
    (tmp_path / "StreamFunction" / "run.sh").write_text("#!/bin/sh\nexec python -m uvicorn app:app\n")
    return tmp_path


def _files_size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def test_every_function_and_layer_is_measured_unzipped_and_zipped(build_dir: Path) -> None:
    sizes = measure(build_dir)
    by_name = {a.name: a for a in sizes.artifacts}
    assert [a.name for a in sizes.artifacts] == ["CoreLayer", "ApiFunction", "StreamFunction"]
    layer = by_name["CoreLayer"]
    assert layer.kind == "layer"
    assert layer.unzipped == _files_size(build_dir / "CoreLayer")
    assert 0 < layer.zipped < layer.unzipped / 10, "repetitive files deflate well"
    assert by_name["ApiFunction"].unzipped == (build_dir / "ApiFunction" / "app.py").stat().st_size
    assert (layer.modules, layer.compiled) == (2, 1)
    assert layer.files == 4, "two sources, one .pyc, one data file"


def test_the_zipped_size_is_the_size_of_a_deflate_archive(
    build_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    directory = build_dir / "CoreLayer"
    archive = tmp_path_factory.mktemp("zip") / "layer.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            out.write(path, path.relative_to(directory).as_posix())
    assert abs(zipped_size(directory) - archive.stat().st_size) <= 16 * 4, "data descriptors aside"


def test_a_function_counts_with_its_layers_and_names_the_layers_it_cannot_measure(build_dir: Path) -> None:
    sizes = measure(build_dir)
    functions = {f.name: f for f in sizes.functions}
    layer = next(a for a in sizes.artifacts if a.name == "CoreLayer")
    api = next(a for a in sizes.artifacts if a.name == "ApiFunction")
    assert functions["ApiFunction"].unzipped == api.unzipped + layer.unzipped
    assert functions["ApiFunction"].layers == ("CoreLayer",)
    assert functions["StreamFunction"].external_layers == ("LambdaAdapterLayerX86:27",)
    lines = report(sizes)
    assert any(line.startswith("CoreLayer (layer)") and "1/2 modules" in line for line in lines)
    stream = next(line for line in lines if line.strip().startswith("StreamFunction + CoreLayer"))
    assert "LambdaAdapterLayerX86:27 (not built here)" in stream
    assert "% of the limit" in stream
    assert sizes.limit == UNZIPPED_LIMIT == 250 * 1024 * 1024
    assert not sizes.over_limit


def test_a_build_over_the_limit_fails(build_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(build_dir)]) == 0
    assert main([str(build_dir)], limit=1000) == 1
    assert "OVER THE LIMIT" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("written", "found"),
    [
        ("trainer_dev/__init__.py", "trainer_dev"),
        ("trainer/local/fake_llm.py", "trainer/local"),
        ("trainer/cli.py", "trainer/cli.py"),
    ],
)
def test_a_layer_with_development_code_fails_the_build(
    build_dir: Path, written: str, found: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not measure(build_dir).development_code
    shipped = build_dir / "CoreLayer" / "python" / written
    shipped.parent.mkdir(parents=True, exist_ok=True)
    shipped.write_text("x = 1\n")

    assert measure(build_dir).development_code == (f"CoreLayer/python/{found}",)
    assert main([str(build_dir)]) == 1
    out = capsys.readouterr().out
    assert f"DEVELOPMENT CODE IN A LAYER (it must not ship): CoreLayer/python/{found}" in out


def test_no_build_is_said_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 2
    assert "make build" in capsys.readouterr().err


def test_make_build_ships_bytecode_and_reports_the_sizes() -> None:
    """Lambda cannot write __pycache__ beside read-only code: the build compiles it, hash-checked
    against nothing (zip timestamps would invalidate timestamp-based .pyc), then reports."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^build:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None
    steps = recipe.group(1).splitlines()
    assert "sam build" in steps[0]
    assert re.search(r"compileall .*--invalidation-mode unchecked-hash \.aws-sam/build$", steps[1])
    assert steps[2].endswith("scripts/layer_sizes.py .aws-sam/build")
