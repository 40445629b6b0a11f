"""Smoke test of an installed puf-harness (a built wheel or sdist, not the source tree).

Run from outside the clone with the environment's python: it checks that the package data
(the known files, their README and the power table) were installed, that the measures, the
property runner (replaying the stored counterexamples) and the command line work, with the
package's declared dependencies alone on the path (``.ci/declared.py``).
"""

import json
import pathlib
import subprocess
import sys
import sysconfig

import numpy as np

import puf
from puf import properties
from puf.properties.knowledge.power_table import POWER_TABLE

here = pathlib.Path(puf.__file__).resolve().parent
own = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
assert here.is_relative_to(own), f"puf imported from {here}, not from the copy installed in {own}"
known = pathlib.Path(properties.__file__).resolve().parent / "knowledge" / "known"
names = {p.stem for p in known.glob("*.json")}
assert set(puf.MEASURES) <= names, f"known files missing from the package: {set(puf.MEASURES) - names}"
assert (known / "README.md").is_file(), "properties/knowledge/known/README.md missing from the package"
assert json.loads(POWER_TABLE.read_text(encoding="utf-8"))["detection"], "power table empty"

population = puf.Population(np.array([0.9, 0.1, 0.8, 0.2]), np.full((4, 4), 0.5))
values = puf.evaluate_measures(population, ["puf", "sd", "gini"])
assert abs(values["sd"] - 0.125**0.5) < 1e-12 and abs(values["puf"] - 0.25) < 1e-12, values
gini = {v.property: v.status for v in properties.verdicts("gini", max_examples=5)}
assert gini["defined"] == "violated" and gini["anonymity"] in ("holds", "proven"), gini

command = [
    str(pathlib.Path(sys.executable).with_name("puf")),
    "check",
    "sd",
    "--property",
    "range",
    "--max-examples",
    "5",
    "--quiet",
]
out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
assert "range" in out, out
print(f"smoke test passed: puf {puf.__version__} from {here}")
