"""
Pairing effectiveness with similarity
=====================================

PUF weights each pair's effectiveness gap by the pair's similarity, so it tells
apart two populations that differ only in *who* gets which score; SD and Gini,
which read the effectiveness alone, cannot. Here the same scores are paired
with one similarity matrix three ways: at random, as fairly and as unfairly as
:func:`puf.synthetic.pair` can.
"""

import matplotlib.pyplot as plt

import puf
from puf import synthetic

similarity = synthetic.similarity_matrix(60, skewness=2.0, mean=0.2, random_state=0)
scores = synthetic.zero_relevance_effectiveness(60, 0.3, random_state=0)
pairings = {
    "random": scores,
    "most fair": synthetic.pair(scores, similarity, mode="most_fair", random_state=0),
    "most unfair": synthetic.pair(scores, similarity, mode="most_unfair", random_state=0),
}
values = {
    name: puf.evaluate_measures(puf.Population(s, similarity), ["puf", "sd", "gini"]) for name, s in pairings.items()
}
for name, row in values.items():
    print(f"{name:12s}", {k: round(v, 4) for k, v in row.items()})

# %%
# SD and Gini are the same for the three pairings; PUF orders them.
fig, axes = plt.subplots(1, 3, figsize=(9, 3), sharey=False)
for ax, measure in zip(axes, ["puf", "sd", "gini"]):
    ax.bar(list(values), [values[name][measure] for name in values], color=["0.3", "#009E73", "#D55E00"])
    ax.set_title(measure.upper())
    ax.tick_params(axis="x", labelrotation=20)
fig.tight_layout()
plt.show()
