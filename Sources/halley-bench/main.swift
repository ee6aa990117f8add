// Benchmarks arrive with their own issue.
print("halley-bench: no scenarios yet")
