"""Running a verdict: the runner, its search and shrinking, the budgets, the measure-call boundary, the verdict matrix, the printed verdicts and the pytest plugin."""

__all__: list[str] = []
