package overview

// Package is one package: what it is for, its size, where it sits.
type Package struct {
	Path         string `json:"path" jsonschema:"import path"`
	Dir          string `json:"dir" jsonschema:"repo-relative directory"`
	Name         string `json:"name" jsonschema:"package name"`
	Doc          string `json:"doc,omitempty" jsonschema:"first sentence of the package doc"`
	Main         bool   `json:"main,omitempty" jsonschema:"a command (package main)"`
	Files        int    `json:"files" jsonschema:"non-test source files"`
	Bytes        int    `json:"bytes" jsonschema:"their size in bytes"`
	TestFiles    int    `json:"test_files" jsonschema:"test files in its directory"`
	Layer        int    `json:"layer" jsonschema:"0: imports no package of the repository; else 1 + its highest import"`
	Imports      int    `json:"imports" jsonschema:"packages of the repository it imports"`
	ExternalUses int    `json:"external_uses" jsonschema:"references to its symbols from other packages' non-test files"`
}

// Layer is one layer of the import graph.
type Layer struct {
	Layer    int      `json:"layer" jsonschema:"0 at the bottom"`
	Packages []string `json:"packages" jsonschema:"directories of its packages, most used first"`
}

// Symbol is one symbol of a ranking.
type Symbol struct {
	Name      string `json:"name" jsonschema:"pkg.Name or pkg.Type.Method"`
	Kind      string `json:"kind" jsonschema:"symbol kind"`
	Path      string `json:"path" jsonschema:"repo-relative file"`
	Line      int    `json:"line" jsonschema:"1-based line of the declaration"`
	StableKey string `json:"stable_key" jsonschema:"durable key"`
	Count     int    `json:"count" jsonschema:"the uses, calls or references it is ranked by"`
}

// File is a file ranked by how often recent commits changed it.
type File struct {
	Path    string `json:"path" jsonschema:"repo-relative file"`
	Commits int    `json:"commits" jsonschema:"recent commits that changed it"`
}

// Tests is a directory holding tests.
type Tests struct {
	Dir      string `json:"dir" jsonschema:"repo-relative directory"`
	Files    int    `json:"files" jsonschema:"its test files"`
	External bool   `json:"external,omitempty" jsonschema:"some are an external test package (pkg_test)"`
}
