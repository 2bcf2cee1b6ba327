// Porcupine's side of bench/check_history_vs_porcupine.sh: decides history files with
// Porcupine (github.com/anishathalye/porcupine) and prints one line per file,
// "FILE Ok|Illegal|Unknown SECONDS". Reads Porcupine's own test histories (Jepsen etcd
// logs as a CAS register, its kv logs as a key-value store split by key) and the JSONL
// histories of bench/gen_history.cpp (-spec register, kv, queue or stack). The models are
// the specifications atomcheck's check-history decides, written for Porcupine's API.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// A call's input and a return's output, for every model: op names the method, key the
// key of a kv operation, a and b its arguments, out the result.
type input struct {
	op   string
	key  string
	a, b string
}
type output struct {
	out     string
	unknown bool
}

const null = "null"

func registerModel() porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return null },
		Step: func(state, in, out interface{}) (bool, interface{}) {
			st := state.(string)
			i, o := in.(input), out.(output)
			switch i.op {
			case "read":
				return o.unknown || o.out == st, st
			case "write":
				return true, i.a
			default: // cas
				swap := st == i.a
				next := st
				if swap {
					next = i.b
				}
				return o.unknown || (o.out == "true") == swap, next
			}
		},
	}
}

func kvModel() porcupine.Model {
	return porcupine.Model{
		PartitionEvent: func(h []porcupine.Event) [][]porcupine.Event {
			keyOf := map[int]string{}
			parts := map[string][]porcupine.Event{}
			for _, e := range h {
				if e.Kind == porcupine.CallEvent {
					keyOf[e.Id] = e.Value.(input).key
				}
				k := keyOf[e.Id]
				parts[k] = append(parts[k], e)
			}
			keys := make([]string, 0, len(parts))
			for k := range parts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			out := make([][]porcupine.Event, 0, len(keys))
			for _, k := range keys {
				out = append(out, parts[k])
			}
			return out
		},
		Init: func() interface{} { return "" },
		Step: func(state, in, out interface{}) (bool, interface{}) {
			st := state.(string)
			i, o := in.(input), out.(output)
			switch i.op {
			case "get":
				return o.unknown || o.out == st, st
			case "put":
				return true, i.a
			default: // append
				return true, st + i.a
			}
		},
	}
}

// A queue or a stack as a string of values joined by commas (values are distinct
// integers in the bench's histories), so that states compare with ==.
func collectionModel(lifo bool) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return "" },
		Step: func(state, in, out interface{}) (bool, interface{}) {
			st := state.(string)
			i, o := in.(input), out.(output)
			if i.op == "enqueue" || i.op == "push" {
				if st == "" {
					return true, i.a
				}
				return true, st + "," + i.a
			}
			if st == "" {
				return o.unknown || o.out == null, st
			}
			var got, rest string
			if lifo {
				at := strings.LastIndexByte(st, ',')
				got, rest = st[at+1:], ""
				if at >= 0 {
					rest = st[:at]
				}
			} else {
				at := strings.IndexByte(st, ',')
				if at < 0 {
					got, rest = st, ""
				} else {
					got, rest = st[:at], st[at+1:]
				}
			}
			return o.unknown || o.out == got, rest
		},
	}
}

// Events from open calls: a client's next return completes its open call; calls never
// returned return at the end with an unknown result.
type recorder struct {
	events []porcupine.Event
	open   map[int]int
	id     int
}

func (r *recorder) call(client int, in input) {
	r.events = append(r.events, porcupine.Event{ClientId: client, Kind: porcupine.CallEvent, Value: in, Id: r.id})
	r.open[client] = r.id
	r.id++
}
func (r *recorder) ret(client int, out output) {
	id, ok := r.open[client]
	if !ok {
		return
	}
	delete(r.open, client)
	r.events = append(r.events, porcupine.Event{ClientId: client, Kind: porcupine.ReturnEvent, Value: out, Id: id})
}
func (r *recorder) finish() []porcupine.Event {
	clients := make([]int, 0, len(r.open))
	for c := range r.open {
		clients = append(clients, c)
	}
	sort.Ints(clients)
	for _, c := range clients {
		r.ret(c, output{unknown: true})
	}
	return r.events
}

var etcdLine = regexp.MustCompile(`jepsen\.util\s+-\s+(\d+)\s+:(\w+)\s+:(\w+)\s+(.*)$`)

func readEtcd(lines []string) []porcupine.Event {
	r := &recorder{open: map[int]int{}}
	for _, l := range lines {
		m := etcdLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		client, _ := strconv.Atoi(m[1])
		kind, op, value := m[2], m[3], strings.TrimSpace(m[4])
		switch kind {
		case "invoke":
			in := input{op: op}
			if op == "write" {
				in.a = value
			} else if op == "cas" {
				f := strings.Fields(strings.Trim(value, "[]"))
				in.a, in.b = f[0], f[1]
			}
			r.call(client, in)
		case "ok":
			if op == "read" {
				if value == "nil" {
					value = null
				}
				r.ret(client, output{out: value})
			} else {
				r.ret(client, output{out: "true"})
			}
		case "fail":
			if op == "cas" {
				r.ret(client, output{out: "false"})
			} else {
				r.ret(client, output{unknown: true})
			}
		}
	}
	return r.finish()
}

var kvField = regexp.MustCompile(`:(\w+) ("(?:[^"\\]|\\.)*"|[^,}]+)`)

func readKv(lines []string) []porcupine.Event {
	r := &recorder{open: map[int]int{}}
	for _, l := range lines {
		fields := map[string]string{}
		for _, m := range kvField.FindAllStringSubmatch(l, -1) {
			fields[m[1]] = strings.Trim(m[2], `"`)
		}
		client, err := strconv.Atoi(fields["process"])
		if err != nil {
			continue
		}
		switch fields["type"] {
		case ":invoke":
			in := input{op: strings.TrimPrefix(fields["f"], ":"), key: fields["key"]}
			if in.op != "get" {
				in.a = fields["value"]
			}
			r.call(client, in)
		case ":ok":
			r.ret(client, output{out: fields["value"]})
		}
	}
	return r.finish()
}

func text(v interface{}) string {
	if v == nil {
		return null
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func readJsonl(lines []string) []porcupine.Event {
	r := &recorder{open: map[int]int{}}
	for _, l := range lines {
		var e struct {
			Client int           `json:"client"`
			Type   string        `json:"type"`
			F      string        `json:"f"`
			Key    interface{}   `json:"key"`
			Args   []interface{} `json:"args"`
			Result interface{}   `json:"result"`
		}
		if json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		switch e.Type {
		case "invoke":
			in := input{op: e.F, key: text(e.Key)}
			if len(e.Args) > 0 {
				in.a = text(e.Args[0])
			}
			if len(e.Args) > 1 {
				in.b = text(e.Args[1])
			}
			r.call(e.Client, in)
		case "ok":
			r.ret(e.Client, output{out: text(e.Result)})
		case "info":
			r.ret(e.Client, output{unknown: true})
		}
	}
	return r.finish()
}

func main() {
	spec := flag.String("spec", "", "for JSONL: register, kv, queue or stack")
	timeout := flag.Duration("timeout", 0, "per file, then Unknown (0: none)")
	flag.Parse()
	for _, file := range flag.Args() {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var lines []string
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		var model porcupine.Model
		var events []porcupine.Event
		switch {
		case strings.Contains(string(data), "jepsen.util"):
			model, events = registerModel(), readEtcd(lines)
		case strings.HasPrefix(string(data), "{:"):
			model, events = kvModel(), readKv(lines)
		default:
			events = readJsonl(lines)
			switch *spec {
			case "kv":
				model = kvModel()
			case "queue":
				model = collectionModel(false)
			case "stack":
				model = collectionModel(true)
			default:
				model = registerModel()
			}
		}
		start := time.Now()
		res := porcupine.CheckEventsTimeout(model, events, *timeout)
		fmt.Printf("%s %s %.6f\n", file, res, time.Since(start).Seconds())
	}
}
