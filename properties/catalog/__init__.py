"""The property catalog: the ``Property`` record, the entries of each family of properties, the judges, and ``CATALOG`` in catalog order."""

__all__: list[str] = []
