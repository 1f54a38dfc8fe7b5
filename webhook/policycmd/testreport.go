package policycmd

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Output formats of `policy test`.
const (
	formatText  = "text"
	formatJSON  = "json"
	formatJUnit = "junit"
)

// result is one test or case of `policy test`, as the JSON format
// prints it.
type result struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
}

// selected says whether a test of this name runs under --run.
func selected(run *regexp.Regexp, name string) bool { return run == nil || run.MatchString(name) }

// printResults writes the collected results, and with JSON the
// coverage (--coverage), in a machine format.
func printResults(out io.Writer, format string, results []result, coverages []coverage) error {
	switch format {
	case formatJSON:
		passed, failed := count(results)
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Passed   int        `json:"passed"`
			Failed   int        `json:"failed"`
			Results  []result   `json:"results"`
			Coverage []coverage `json:"coverage,omitempty"`
		}{passed, failed, results, coverages})
	case formatJUnit:
		return printJUnit(out, results)
	}
	return fmt.Errorf("unknown format %q (text, json or junit)", format)
}

func count(results []result) (passed, failed int) {
	for _, r := range results {
		if r.Passed {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// JUnit XML, as CI systems read it: one suite, one case per test, the kind
// of test (rego, case, configmap, bundle) as its class.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func printJUnit(out io.Writer, results []result) error {
	_, failed := count(results)
	suite := junitSuite{Name: "sluice policy test", Tests: len(results), Failures: failed}
	for _, r := range results {
		class, name, ok := strings.Cut(r.Name, " ")
		if !ok {
			class, name = "test", r.Name
		}
		c := junitCase{Class: class, Name: name}
		if !r.Passed {
			first, _, _ := strings.Cut(r.Message, "\n")
			c.Failure = &junitFailure{Message: first, Text: r.Message}
		}
		suite.Cases = append(suite.Cases, c)
	}
	if _, err := io.WriteString(out, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(out)
	enc.Indent("", "  ")
	if err := enc.Encode(suite); err != nil {
		return err
	}
	_, err := io.WriteString(out, "\n")
	return err
}
