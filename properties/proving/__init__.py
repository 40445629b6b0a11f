"""Proofs for grammar measures (the composition rules and the SMT solver) and the designer that searches the grammar for measures meeting chosen properties."""

__all__: list[str] = []
