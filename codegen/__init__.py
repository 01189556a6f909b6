"""yaten's generator: ops.yaml -> C++ API, backend wrappers, registrations, kernel contracts, Python bindings.

Pure Python (PyYAML and Jinja2); it never imports yaten, because the build runs it before yaten exists.
Entry points: `parse.load(path, csrc)` -> the model (model.OpsFile), `gen.generate(model)` -> the files, which
`gen.write(files, out_dir)` writes (only those whose text changed), and the CLI in `__main__` (`python -m codegen`).
Between the model and the templates sits a typed middle layer of frozen dataclasses: views.py (each overload's C++
API, backend kernels and autograd plan) and python_views.py (its Python bindings, stubs and reference entry).
"""
