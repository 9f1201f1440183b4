"""vwheel.compat.variantlib against the behaviour the conformance vectors (made by variantlib) specify."""

from __future__ import annotations

import json

import pytest

from vwheel.compat import variantlib as vl


def test_labels_of_the_hash_vectors(shared):
    for case in json.loads((shared / "vectors" / "hash_labels.json").read_text())["cases"]:
        desc = vl.VariantDescription([vl.VariantProperty.from_str(p) for p in case["properties"]])
        assert desc.label == case["label"] == vl.get_variant_label(desc)
        assert desc.hexdigest == case["hexdigest"]


def test_custom_labels():
    desc = vl.VariantDescription([vl.VariantProperty("a", "b", "c")])
    assert vl.get_variant_label(desc, "gpu") == "gpu"
    with pytest.raises(vl.ValidationError):
        vl.get_variant_label(desc, "null")
    with pytest.raises(ValueError):
        vl.VariantDescription([vl.VariantProperty("a", "b", "c")] * 2)


def test_get_variants_by_priority_follows_the_resolver_vectors(shared, tmp_path):
    doc = json.loads((shared / "vectors" / "resolver.json").read_text())
    env = doc["meta"]["marker_environment"]
    checked = 0
    for case in doc["cases"]:
        inp = case["input"]
        if inp["user_config"] is not None or inp["abi_dependency"]["installed_distributions"] \
                or inp["abi_dependency"]["env"] is not None:
            continue  # the user's variants.toml and installed distributions are not arguments here
        target = tmp_path / "target.json"
        target.write_text(json.dumps({"environment": env, "properties": {
            ns: [dict(name=c["name"], values=c["values"], multi_value=c.get("multi_value", False))
                 for c in plugin["supported_configs"]] for ns, plugin in inp["plugins"].items()}}))
        if not case["expected"]["ok"]:
            continue  # a plugin that fails to load: vwheel's providers are native (compared with the CLI elsewhere)
        got = vl.get_variants_by_priority(variants_json=inp["variants_json"], target=target,
                                          enable_optional_plugins=inp["enable_optional_plugins"])
        assert got == case["expected_order"], case["id"]
        checked += 1
    assert checked >= 100


def test_serialized_outputs_are_variantlibs(shared):
    compared = 0
    for case in json.loads((shared / "vectors" / "serialize.json").read_text())["cases"]:
        if not case["ok"]:
            continue
        uses_aot = '"install-time": false' in json.dumps(case)
        try:
            if case["case"].startswith("make_variant_dist_info"):
                info = vl.VariantPyProjectToml(case["pyproject"]) if case["pyproject"] else None
                desc = vl.VariantDescription([vl.VariantProperty(*p) for p in case["properties"]],
                                             label=case["label"])
                out = vl.make_variant_dist_info(desc, info)
            else:
                out = vl.VariantsJson(case["input"]).to_str()
        except vl.ValidationError as e:
            # Deliberate difference (python/README.md): an ahead-of-time provider without
            # static-properties is refused (PEP 817), where variantlib runs its plugin to fill them.
            assert uses_aot and "static-properties" in str(e), case["case"]
            continue
        assert out == case["output"], case["case"]
        compared += 1
    assert compared >= 8


def test_environment_dict_validation_and_support(shared):
    torch = next((shared / "data" / "real-variants").rglob("torch-2.8.0-variants.json"))
    vj = vl.VariantsJson(json.loads(torch.read_text()))
    desc = vl.VariantDescription([vl.VariantProperty("nvidia", "cuda_version_lower_bound", "12.8"),
                                  vl.VariantProperty("nvidia", "sm_arch", "90_real")])
    env = vl.get_variant_environment_dict(desc)
    assert env == {"variant_namespaces": {"nvidia"},
                   "variant_features": {"nvidia :: cuda_version_lower_bound", "nvidia :: sm_arch"},
                   "variant_properties": {"nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 90_real"},
                   "variant_label": desc.label}
    result = vl.validate_variant(desc, vj)
    assert result.is_valid() and not result.invalid_properties
    bad = vl.VariantDescription([vl.VariantProperty("nvidia", "cuda_version_lower_bound", "1.0"),
                                 vl.VariantProperty("nvidia", "cuda_version_lower_bound", "12.8"),
                                 vl.VariantProperty("unknown_ns", "f", "v")])
    result = vl.validate_variant(bad, vj)
    assert result.invalid_properties == [vl.VariantProperty("nvidia", "cuda_version_lower_bound", "1.0")]
    assert result.unknown_properties == [vl.VariantProperty("unknown_ns", "f", "v")]
    assert result.multi_value_violations == {vl.VariantFeature("nvidia", "cuda_version_lower_bound")}
    assert not result.is_valid()
    # This machine's support equals vwheel's own ranking of the same variant.
    import vwheel
    supported = vl.check_variant_supported(vdesc=desc, variant_info=vj)
    doc = json.loads(torch.read_text())
    doc["variants"] = {desc.label: {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}}}
    assert supported == (desc.label in vwheel.rank(doc))
    assert vl.get_variants_by_priority(variants_json=vj) == vwheel.rank(torch)


def test_pyproject_reader(tmp_path):
    p = tmp_path / "pyproject.toml"
    p.write_text('[variant.default-priorities]\nnamespace = ["x86_64"]\n'
                 '[variant.providers.x86_64]\nrequires = ["provider-variant-x86-64"]\n'
                 'plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"\n')
    info = vl.VariantPyProjectToml.from_path(p)
    assert info.namespace_priorities == ["x86_64"]
    assert info.providers["x86_64"].requires == ["provider-variant-x86-64"]
    assert info.providers["x86_64"].plugin_api == "provider_variant_x86_64.plugin:X8664Plugin"
    import tomllib
    assert vl.VariantPyProjectToml(tomllib.loads(p.read_text())) == info
    with pytest.raises(vl.ValidationError):
        vl.VariantPyProjectToml({"variant": {"default-priorities": {"namespace": "x86_64"}}})
