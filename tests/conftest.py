"""Shared fixtures: hypothesis profiles (`dev` quick, `ci` thorough) and real treeloom CPGs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

SAMPLES = Path(__file__).parent / "samples"
TREELOOM = Path(sys.executable).parent / "treeloom"


def build_cpg_file(source: Path, out: Path, include_source: bool = True) -> Path:
    """Run the real ``treeloom build`` on a directory and return the CPG path."""
    cmd = [str(TREELOOM), "build", str(source), "-o", str(out), "--quiet"]
    if include_source:
        cmd.append("--include-source")
    subprocess.run(cmd, check=True, capture_output=True)
    return out


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A writable copy of tests/samples (treeloom skips paths under venv-like folders)."""
    target = tmp_path_factory.mktemp("samples")
    shutil.copytree(SAMPLES, target, dirs_exist_ok=True)
    return target


@pytest.fixture(scope="session")
def pyshop_cpg(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real treeloom CPG (with source text) of the Python sample project."""
    return build_cpg_file(sample_dir / "pyshop", tmp_path_factory.mktemp("cpg") / "pyshop.json")


@pytest.fixture(scope="session")
def jsutil_cpg(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real treeloom CPG of the JavaScript sample (no end lines, no source)."""
    return build_cpg_file(sample_dir / "jsutil", tmp_path_factory.mktemp("cpg") / "jsutil.json")
