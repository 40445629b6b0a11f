"""What the harness knows in advance: the pinned verdicts and stored examples (``known/``), the plugin's pins, the flaw corpus (``corpus/``) and the power table it produces."""

__all__: list[str] = []
