"""yaten's generator: ops.yaml -> C++ API, backend wrappers, registrations, kernel contracts, Python bindings.

Pure Python (PyYAML and Jinja2); it never imports yaten, because the build runs it before yaten exists.
Entry points: `parse.load(path)` -> model, `gen.generate(model, out_dir)`, and the CLI in `__main__`.
"""
