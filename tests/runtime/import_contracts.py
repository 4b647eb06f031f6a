"""An import-linter contract type that the built-in ones lack: an allow-list.

``type = "allow_list"`` (registered in pyproject.toml under ``contract_types``): the ``source_modules`` (each with
every module below it) import each other and the ``allowed_modules`` (names such as ``json`` or
``exactrelu.certificates.trusted``, each with its submodules), and nothing else. The trusted base's "standard
library only" rule is stated this way: a deny-list of six packages let the seventh in (``import sympy`` in
``trusted/lp.py`` kept it), an allow-list names what may come in.
"""

from __future__ import annotations

from importlinter import Contract, ContractCheck, fields, output

__all__ = ["AllowListContract"]


class AllowListContract(Contract):
    """The source modules import only each other and the allowed modules (checked on direct imports)."""

    type_name = "allow_list"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    allowed_modules = fields.ListField(subfield=fields.StringField())

    def check(self, graph, verbose: bool) -> ContractCheck:
        sources = set()
        for module in self.source_modules:
            if module.name not in graph.modules:
                raise ValueError(f"{module.name} is not a module of the graph")
            sources |= {module.name} | graph.find_descendants(module.name)
        allowed = set(self.allowed_modules)
        broken = []
        for importer in sorted(sources):
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if imported in sources or any(imported == a or imported.startswith(a + ".") for a in allowed):
                    continue
                details = graph.get_import_details(importer=importer, imported=imported)
                broken.append((importer, imported, sorted({d["line_number"] for d in details})))
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported, lines in check.metadata["broken"]:
            where = ", ".join(f"l.{n}" for n in lines)
            output.print_error(f"{importer} -> {imported} ({where}): not on the allow-list", bold=False)
            output.new_line()
