"""
Verdicts of two measures
========================

:func:`puf.properties.verdicts` puts a measure through every property of the
catalog. The stored counterexamples of ``properties/knowledge/known`` are replayed first,
so a small example budget already reaches the pinned verdicts. The matrix below
shows SD and PUF side by side: SD ignores similarity, so the similarity
properties are violated.
"""

import matplotlib.pyplot as plt
import numpy as np

from puf import properties

results = properties.all_verdicts(["sd", "puf"], max_examples=5, random_state=0)
matrix = properties.verdict_matrix(results=results)
print(matrix.T)

# %%
# Green: holds; vermillion: violated; grey: anything else.
codes = {"holds": 0, "violated": 1}
grid = np.array([[codes.get(s, 2) for s in row] for row in matrix.T.to_numpy()])
fig, ax = plt.subplots(figsize=(4, 6))
ax.imshow(grid, cmap=plt.matplotlib.colors.ListedColormap(["#009E73", "#D55E00", "0.7"]), vmin=0, vmax=2, aspect="auto")
ax.set_xticks(range(matrix.shape[0]), matrix.index)
ax.set_yticks(range(matrix.shape[1]), matrix.columns)
fig.tight_layout()
plt.show()
