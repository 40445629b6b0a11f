"""The cases the properties are checked on: the ``Case`` record, the draws of fields, the public Hypothesis strategies, and the case strategy of each family of properties."""

__all__: list[str] = []
