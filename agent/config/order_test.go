package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestStartOrder(t *testing.T) {
	type inst struct {
		id   string
		deps []string
	}
	cases := []struct {
		name    string
		in      []inst
		want    []string
		wantErr []string
	}{
		{"empty", nil, []string{}, nil},
		{"no deps keeps file order", []inst{{"c", nil}, {"a", nil}, {"b", nil}}, []string{"c", "a", "b"}, nil},
		{"dependency first", []inst{{"world", []string{"ether"}}, {"ether", nil}}, []string{"ether", "world"}, nil},
		{"stable around deps", []inst{{"a", []string{"c"}}, {"b", nil}, {"c", nil}, {"d", nil}}, []string{"b", "c", "a", "d"}, nil},
		{"chain", []inst{{"a", []string{"b"}}, {"b", []string{"c"}}, {"c", nil}}, []string{"c", "b", "a"}, nil},
		{"diamond", []inst{{"top", []string{"l", "r"}}, {"l", []string{"base"}}, {"r", []string{"base"}}, {"base", nil}},
			[]string{"base", "l", "r", "top"}, nil},
		{"two worlds", []inst{{"w10", []string{"e10"}}, {"w11", []string{"e11"}}, {"e10", nil}, {"e11", nil}},
			[]string{"e10", "w10", "e11", "w11"}, nil},
		{"self", []inst{{"a", []string{"a"}}}, nil, []string{`instance[0].depends_on[0]: "a" is the instance itself`}},
		{"unknown", []inst{{"a", []string{"zz"}}}, nil, []string{`instance[0].depends_on[0]: "zz" is not a configured instance`}},
		{"two-cycle", []inst{{"a", []string{"b"}}, {"b", []string{"a"}}}, nil, []string{"instance[0].depends_on: dependency cycle: a → b → a"}},
		{"three-cycle behind a root", []inst{{"x", []string{"a"}}, {"a", []string{"b"}}, {"b", []string{"c"}}, {"c", []string{"a"}}}, nil,
			[]string{"instance[1].depends_on: dependency cycle: a → b → c → a"}},
		{"two separate cycles", []inst{{"a", []string{"b"}}, {"b", []string{"a"}}, {"c", []string{"d"}}, {"d", []string{"c"}}}, nil,
			[]string{"a → b → a", "c → d → c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{}
			for _, in := range tc.in {
				c.Instances = append(c.Instances, Instance{ID: in.id, DependsOn: in.deps})
			}
			order, err := c.StartOrder()
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; order %v", idsOf(order))
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				if n, want := len(fieldErrors(t, err)), len(tc.wantErr); n != want {
					t.Errorf("%d problems, want %d:\n%v", n, want, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := idsOf(order); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("order %v, want %v", got, tc.want)
			}
			for _, p := range order {
				if c.Instance(p.ID) != p {
					t.Errorf("%s: StartOrder returned a copy, want a pointer into Instances", p.ID)
				}
			}
		})
	}
}
