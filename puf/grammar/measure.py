"""A grammar form as a measure: the callable that ``puf.as_measure`` and the registry take.

:func:`grammar_measure` wraps a :class:`~puf.grammar.PairForm` or
:class:`~puf.grammar.IndexForm` in a callable whose parameters are the
Population fields the form reads, carrying its metadata (``__puf_measure__``),
so a form is checked, registered, loaded from a file and pickled like any
measure; :func:`form_of` finds the form back.
"""

from __future__ import annotations

__all__ = ["grammar_measure", "form_of"]

from collections.abc import Callable
from typing import Any

from ..metadata import Measure
from ..validation import check_effectiveness, check_similarity
from .forms import IndexForm, PairForm


class _GrammarMeasure:
    """A form as a measure: the callable ``puf.as_measure`` takes (see :func:`grammar_measure`)."""

    def __init__(self, form, name, metadata):
        self.form, self.__name__, self.metadata = form, name, dict(metadata)
        self.__doc__ = form.formula()

    def __reduce__(self):
        return grammar_measure, (self.form,), {"__name__": self.__name__, "metadata": self.metadata}

    def __setstate__(self, state):
        self.__name__, self.metadata = state["__name__"], state["metadata"]

    @property
    def __puf_measure__(self):
        meta = dict(dict(range=self.form.bounds(), definition=self.form.formula()), **self.metadata)
        return Measure(self, self.__name__, **meta)

    __puf_instances__ = ()

    @property
    def __puf_pair_kernel__(self):
        """The form's pair kernel (a mean over pairs), or None (:func:`puf.grammar.kernels.form_kernel`)."""
        from .kernels import form_kernel

        return form_kernel(self.form)

    def __repr__(self):
        return f"grammar_measure({self.form!r}, name={self.__name__!r})"


class _EffectivenessMeasure(_GrammarMeasure):
    def __call__(self, effectiveness):
        minimum = 2 if isinstance(self.form, PairForm) else 1
        return self.form.value(check_effectiveness(effectiveness, min_users=minimum))


class _PairSimilarityMeasure(_GrammarMeasure):
    def __call__(self, effectiveness, similarity):
        s = check_effectiveness(effectiveness, min_users=2)
        return self.form.value(s, check_similarity(similarity, m=s.shape[0]))


def grammar_measure(form: PairForm | IndexForm, *, name: str | None = None, **metadata: Any) -> Callable[..., float]:
    """Return ``form`` as a measure: a callable reading the fields the form reads.

    Parameters
    ----------
    form : PairForm or IndexForm
    name : str, optional
        Registered name; default the form's own (``form.name()``).
    **metadata
        As for :func:`puf.measure` (``label``, ``range``, ``reference``, ...);
        the range defaults to the bounds the form's blocks prove, the
        definition to the form's formula.

    Examples
    --------
    >>> import puf
    >>> md = grammar_measure(PairForm(), name="md")
    >>> puf.as_measure(md).reads, md([0.0, 0.5, 1.0])
    (('effectiveness',), 0.6666666666666666)
    """
    if not isinstance(form, (PairForm, IndexForm)):
        raise ValueError(f"form must be a PairForm or an IndexForm, got {form!r}")
    kind = _PairSimilarityMeasure if "similarity" in form.reads else _EffectivenessMeasure
    made = kind(form, name or form.name(), metadata)
    _ = made.__puf_measure__  # metadata checked now, where it is written
    return made


def form_of(function: object) -> PairForm | IndexForm | None:
    """The grammar form behind a measure function, or None.

    Examples
    --------
    >>> form_of(grammar_measure(IndexForm("cv"))), form_of(len)
    (IndexForm(form='cv', parameter=None), None)
    """
    form = getattr(function, "form", None)
    return form if isinstance(function, _GrammarMeasure) else None
