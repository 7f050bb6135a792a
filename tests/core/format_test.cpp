#include "core/format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "core/ids.h"
#include "test_trees.h"

namespace uiscope {
namespace {

using nlohmann::json;
using testing::CollectIds;
using testing::MakeNode;

Node WithId(Node n, std::string id) {
  n.id = std::move(id);
  return n;
}

// A small player window with one node of each kind the formats treat
// specially. IDs are spelled out so the golden text does not depend on hashing.
Snapshot PlayerSnapshot() {
  Node play = WithId(MakeNode(Role::kButton, "Play"), "btn_play");
  play.bounds = Rect{10, 5, 80, 30};
  play.states.Set(State::kFocused);
  play.states.Set(State::kFocusable);
  play.actions = {"click"};

  Node loop = WithId(MakeNode(Role::kCheckBox, "Loop"), "chk_loop");
  loop.states.Set(State::kChecked);

  Node stop = WithId(MakeNode(Role::kButton, "Stop"), "btn_stop");
  stop.states.Set(State::kEnabled, false);

  Node password = WithId(MakeNode(Role::kTextField, "Password"), "txt_pw");
  password.states.Set(State::kPassword);
  password.value = "hunter2";  // a backend bug: must still never be printed

  Node search = WithId(MakeNode(Role::kTextField, "Search"), "txt_find");
  search.value = "abc";
  search.states.Set(State::kFocused);

  Node volume = WithId(MakeNode(Role::kSlider, "Volume"), "sld_vol");
  volume.value = "0.6";
  volume.source = Source::kVision;
  volume.confidence = 0.83f;
  volume.bounds = Rect{100, 50, 200, 20};
  volume.states = StateSet{};  // vision knows no states: not "disabled"

  Node label = WithId(MakeNode(Role::kLabel, "Say \"hi\" \\ \nbye"), "lbl_say");
  Node help = WithId(MakeNode(Role::kLink, "Help"), "lnk_help");
  help.bounds = Rect{700, 570, 40, 16};
  Node heading = WithId(MakeNode(Role::kHeading, "Now playing"), "hdg_now");

  Node panel =
      WithId(MakeNode(Role::kPanel, "", {std::move(volume), std::move(label)}), "pnl_main");
  Node window =
      WithId(MakeNode(Role::kWindow, "Player",
                      {std::move(heading), std::move(play), std::move(loop), std::move(stop),
                       std::move(password), std::move(search), std::move(panel), std::move(help)}),
             "win_main");
  window.bounds = Rect{0, 0, 800, 600};
  window.states.Set(State::kActive);
  window.app = "player";
  Node app = WithId(MakeNode(Role::kApplication, "player", {std::move(window)}), "app_plyr");
  app.pid = 1234;

  Snapshot s;
  s.frame = Frame{1920, 1080, 1.0};
  s.stats = ObserveStats{12, 3, 1, 1, 42.5, ""};
  s.roots.push_back(std::move(app));
  return s;
}

FormatOutput MustFormat(const Snapshot& s, const FormatOptions& options) {
  Result<FormatOutput> out = FormatSnapshot(s, options);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().ToString());
  return out.ok() ? *out : FormatOutput{};
}

FormatOptions Options(Format format, int max_nodes = 0, int max_chars = 0,
                      std::string cursor = "") {
  FormatOptions o;
  o.format = format;
  o.max_nodes = max_nodes;
  o.max_chars = max_chars;
  o.cursor = std::move(cursor);
  o.elide_layout = false;  // these tests count every node; eliding has its own test
  return o;
}

// Seed 002's flat list: the active window's targets first, then more
// learned hits, higher confidence, reading order; a target memory holds
// reads learned; elements with no click point on screen are left out.
TEST(FormatTest, TargetsListsWhatToActOnMostRelevantFirst) {
  Snapshot s = PlayerSnapshot();
  Node& player = s.roots[0].children[0];
  player.children[3].bounds = Rect{100, 5, 80, 30};  // "Stop", disabled
  Node knob = WithId(MakeNode(Role::kIcon, "Canvas knob"), "lrn_knob");
  knob.bounds = Rect{400, 300, 40, 20};
  knob.source = Source::kLearned;
  knob.confidence = 0.9f;
  knob.states.Set(State::kStale);
  player.children.push_back(std::move(knob));
  // A second application's window, not active: after the active one's.
  Node ok = WithId(MakeNode(Role::kButton, "OK"), "btn_ok");
  ok.bounds = Rect{1000, 500, 60, 24};
  Node dialog = WithId(MakeNode(Role::kDialog, "Saved", {std::move(ok)}), "dlg_saved");
  dialog.bounds = Rect{950, 450, 200, 120};
  s.roots.insert(s.roots.begin(),
                 WithId(MakeNode(Role::kApplication, "notes", {std::move(dialog)}), "app_notes"));

  FormatOptions o = Options(Format::kTargets);
  o.learned_hits = [](const Node& n) { return n.id == "lnk_help" ? 2 : 0; };
  const FormatOutput out = MustFormat(s, o);
  EXPECT_EQ(out.text,
            "app \"player\" window \"Player\" active\n"
            "  [link \"Help\" id=lnk_help click=720,578 conf=1.00 learned hits=2]\n"
            "  [button \"Play\" id=btn_play click=50,20 conf=1.00 focused]\n"
            "  [button \"Stop\" id=btn_stop click=140,20 conf=1.00 disabled]\n"
            "  [icon \"Canvas knob\" id=lrn_knob click=420,310 conf=0.90 learned stale]\n"
            "  [slider \"Volume\" id=sld_vol click=200,60 conf=0.83]\n"
            "app \"notes\" window \"Saved\"\n"
            "  [button \"OK\" id=btn_ok click=1030,512 conf=1.00]\n");
  EXPECT_EQ(out.json["app"], "player");
  EXPECT_EQ(out.json["window"], "Player");
  ASSERT_EQ(out.json["targets"].size(), 6u);
  const json& help = out.json["targets"][0];
  EXPECT_EQ(help["id"], "lnk_help");
  EXPECT_EQ(help["label"], "Help");
  EXPECT_EQ(help["click"], (json{{"x", 720}, {"y", 578}}));
  EXPECT_TRUE(help["learned"].get<bool>());
  EXPECT_EQ(help["hits"], 2);
  EXPECT_FALSE(out.json["targets"][1]["learned"].get<bool>());
  EXPECT_TRUE(out.json["targets"][3]["learned"].get<bool>()) << "source learned";
  EXPECT_EQ(out.json["targets"][5]["app"], "notes");
  EXPECT_EQ(out.json["page"]["nodes_total"], 6);
  for (const json& t : out.json["targets"]) EXPECT_NE(t["id"], "txt_pw") << "no click point";

  // Pages of two: the window line again where a page starts, nothing lost.
  o.max_nodes = 2;
  std::vector<std::string> ids;
  std::string cursor;
  do {
    o.cursor = cursor;
    const FormatOutput page = MustFormat(s, o);
    EXPECT_TRUE(page.text.starts_with("app ")) << page.text;
    for (const json& t : page.json["targets"]) ids.push_back(t["id"]);
    cursor = page.next_cursor;
  } while (!cursor.empty());
  EXPECT_EQ(ids, (std::vector<std::string>{"lnk_help", "btn_play", "btn_stop", "lrn_knob",
                                           "sld_vol", "btn_ok"}));
}

TEST(FormatTest, ParseFormat) {
  EXPECT_EQ(*ParseFormat("compact"), Format::kCompact);
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_EQ(*ParseFormat("semantic"), Format::kSemantic);
  const Result<Format> bad = ParseFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("compact, json, semantic"), std::string::npos);
  EXPECT_FALSE(ParseFormat("").ok());
  EXPECT_FALSE(ParseFormat("JSON").ok());
  EXPECT_EQ(FormatName(Format::kSemantic), "semantic");
  EXPECT_EQ(*ParseFormat("targets"), Format::kTargets);
  EXPECT_EQ(FormatName(Format::kTargets), "targets");
}

TEST(FormatTest, CompactElidesAnonymousLayoutBoxes) {
  FormatOptions o;
  o.format = Format::kCompact;  // elide_layout is the default
  const FormatOutput out = MustFormat(PlayerSnapshot(), o);
  // The unnamed panel is gone; its children move up to its depth.
  EXPECT_EQ(out.text.find("[panel"), std::string::npos);
  EXPECT_NE(out.text.find("\n    [slider \"Volume\""), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("\n    [label \"Say"), std::string::npos) << out.text;
  EXPECT_EQ(out.nodes_total, 11);
  // JSON keeps every node.
  EXPECT_EQ(MustFormat(PlayerSnapshot(), Options(Format::kJson)).nodes_total, 12);
  // A named panel, or one with an action, stays.
  Snapshot s = PlayerSnapshot();
  ForEachNodeMutable(s.roots, [](Node& n, int) {
    if (n.role == Role::kPanel) n.name = "Mixer";
  });
  EXPECT_NE(MustFormat(s, o).text.find("[panel \"Mixer\""), std::string::npos);
}

TEST(FormatTest, CompactGolden) {
  const FormatOutput out = MustFormat(PlayerSnapshot(), Options(Format::kCompact));
  EXPECT_EQ(out.text,
            "[application \"player\" id=app_plyr pid=1234]\n"
            "  [window \"Player\" id=win_main bounds=0,0,800,600 active]\n"
            "    [heading \"Now playing\" id=hdg_now]\n"
            "    [button \"Play\" id=btn_play bounds=10,5,80,30 focused]\n"
            "    [check_box \"Loop\" id=chk_loop checked]\n"
            "    [button \"Stop\" id=btn_stop disabled]\n"
            "    [text_field \"Password\" id=txt_pw password]\n"
            "    [text_field \"Search\" id=txt_find value=\"abc\" focused]\n"
            "    [panel id=pnl_main]\n"
            "      [slider \"Volume\" id=sld_vol value≈\"0.6\" bounds=100,50,200,20 "
            "source=vision conf=0.83]\n"
            "      [label \"Say \\\"hi\\\" \\\\ \\nbye\" id=lbl_say]\n"
            "    [link \"Help\" id=lnk_help bounds=700,570,40,16]\n");
  EXPECT_EQ(out.nodes_total, 12);
  EXPECT_EQ(out.nodes_emitted, 12);
  EXPECT_FALSE(out.truncated);
  EXPECT_EQ(out.next_cursor, "");
  EXPECT_TRUE(out.json.is_null());
}

// Inside a web page (AT-SPI's "document web", over CDP or not) a line says
// what an agent reads or acts by: no bounds, and an ID only where there is
// something to do with the element itself. The page's own line, and every
// line outside a page, keep both.
TEST(FormatTest, PageLinesLeaveOutBoundsAndTheIdsOfPlainText) {
  Node cell = WithId(MakeNode(Role::kTableCell, "Item 1"), "cel_1");
  cell.bounds = Rect{18, 283, 57, 19};
  Node clickable = WithId(MakeNode(Role::kTableCell, "Open"), "cel_2");
  clickable.actions = {"click"};
  clickable.bounds = Rect{74, 283, 78, 19};
  Node row = WithId(MakeNode(Role::kTableRow, "", {cell, clickable}), "row_1");
  row.bounds = Rect{18, 283, 182, 19};
  Node text = WithId(MakeNode(Role::kText, "Read the"), "tx_1");
  text.bounds = Rect{18, 161, 57, 16};
  Node field = WithId(MakeNode(Role::kTextField, "Name"), "txt_1");
  field.value = "Ada";
  field.bounds = Rect{56, 106, 186, 22};
  Node item = WithId(MakeNode(Role::kText, "Germany"), "tx_2");
  item.states.Set(State::kFocusable);
  Node page = WithId(MakeNode(Role::kDocument, "Shop", {text, field, item, row}), "doc_1");
  page.toolkit_role = "document web";
  page.bounds = Rect{10, 20, 900, 700};
  Node outside = WithId(MakeNode(Role::kText, "Status"), "tx_3");
  outside.bounds = Rect{0, 720, 100, 16};
  Node window = WithId(MakeNode(Role::kWindow, "Browser", {page, outside}), "win_1");
  Snapshot s;
  s.roots = {window};
  EXPECT_EQ(MustFormat(s, Options(Format::kCompact)).text,
            "[window \"Browser\" id=win_1]\n"
            "  [document \"Shop\" id=doc_1 bounds=10,20,900,700]\n"
            "    [text \"Read the\"]\n"
            "    [text_field \"Name\" id=txt_1 value=\"Ada\"]\n"
            "    [text \"Germany\" id=tx_2]\n"
            "    [table_row id=row_1]\n"
            "      [table_cell \"Item 1\"]\n"
            "      [table_cell \"Open\" id=cel_2]\n"
            "  [text \"Status\" id=tx_3 bounds=0,720,100,16]\n");
  // Another kind of document (an office document) keeps its lines whole.
  s.roots[0].children[0].toolkit_role = "document text";
  EXPECT_NE(MustFormat(s, Options(Format::kCompact))
                .text.find("[table_cell \"Item 1\" id=cel_1 bounds=18,283,57,19]"),
            std::string::npos);
  // The json format keeps every ID and box.
  const std::string json_text = MustFormat(s, Options(Format::kJson)).text;
  EXPECT_NE(json_text.find("cel_1"), std::string::npos);
}

TEST(FormatTest, CompactSourcesOtherThanVisionUseExactValues) {
  Snapshot s;
  Node ocr = WithId(MakeNode(Role::kText, "Total"), "tx_1");
  ocr.source = Source::kOcr;
  ocr.confidence = 0.5f;
  Node merged = WithId(MakeNode(Role::kButton, "OK"), "btn_1");
  merged.source = Source::kMerged;
  merged.confidence = 0.9f;
  merged.value = "v";
  merged.states.Set(State::kEnabled, false);  // state read from AT-SPI: shown
  s.roots = {ocr, merged};
  EXPECT_EQ(MustFormat(s, Options(Format::kCompact)).text,
            "[text \"Total\" id=tx_1 source=ocr conf=0.50]\n"
            "[button \"OK\" id=btn_1 value=\"v\" disabled source=merged conf=0.90]\n");
}

TEST(FormatTest, AnUnnamedElementIsPrintedWithItsDescription) {
  Snapshot s;
  Node clear = WithId(MakeNode(Role::kButton, ""), "btn_ac");
  clear.description = "Clear Display [Escape]";
  Node undo = WithId(MakeNode(Role::kButton, "Undo"), "btn_undo");
  undo.description = "Undo [Ctrl+Z]";  // named: the description costs tokens only
  Node bare = WithId(MakeNode(Role::kButton, ""), "btn_bare");
  s.roots = {clear, undo, bare};
  EXPECT_EQ(MustFormat(s, Options(Format::kCompact)).text,
            "[button desc=\"Clear Display [Escape]\" id=btn_ac]\n"
            "[button \"Undo\" id=btn_undo]\n"
            "[button id=btn_bare]\n");
  const json semantic = MustFormat(s, Options(Format::kSemantic)).json;
  ASSERT_EQ(semantic["buttons"].size(), 3u);
  EXPECT_EQ(semantic["buttons"][0]["label"], "");
  EXPECT_EQ(semantic["buttons"][0]["description"], "Clear Display [Escape]");
  EXPECT_FALSE(semantic["buttons"][1].contains("description"));
}

TEST(FormatTest, CompactControlCharactersAreEscaped) {
  Snapshot s;
  s.roots = {WithId(MakeNode(Role::kLabel, "a\tb\rc\x1b"), "lbl_1")};
  EXPECT_EQ(MustFormat(s, Options(Format::kCompact)).text,
            "[label \"a\\tb\\rc\\u001b\" id=lbl_1]\n");
}

TEST(FormatTest, CompactBidiC1AndInvisibleCharactersAreEscaped) {
  Snapshot s;
  Node app = WithId(MakeNode(Role::kApplication, "evil\u200Bapp"), "app_1");
  app.toolkit = "GTK\x1b]0;x\x07";
  app.children = {WithId(MakeNode(Role::kButton, "Save \u202Egnp.exe\xC2\x9B" "2J"), "btn_1")};
  s.roots = {app};
  EXPECT_EQ(MustFormat(s, Options(Format::kCompact)).text,
            "[application \"evil\\u200bapp\" id=app_1 toolkit=GTK\\u001b]0;x\\u0007]\n"
            "  [button \"Save \\u202egnp.exe\\u009b2J\" id=btn_1]\n");
}

TEST(FormatTest, CompactCutsLongStringsAtCharacterBoundary) {
  Snapshot s;
  const std::string eighty(80, 'x');
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "é";            // 2 bytes each
  const std::string euros = std::string(78, 'a') + "€€€";  // 81 characters
  s.roots = {WithId(MakeNode(Role::kLabel, eighty), "lbl_1"),
             WithId(MakeNode(Role::kLabel, accents), "lbl_2"),
             WithId(MakeNode(Role::kLabel, euros), "lbl_3"),
             WithId(MakeNode(Role::kLabel, "bad\xff\xc3"), "lbl_4")};
  std::string accents_cut;
  for (int i = 0; i < 79; ++i) accents_cut += "é";
  EXPECT_EQ(MustFormat(s, Options(Format::kCompact)).text,
            "[label \"" + eighty + "\" id=lbl_1]\n" +            // exactly 80: whole
                "[label \"" + accents_cut + "…\" id=lbl_2]\n" +  // 79 + "…"
                "[label \"" + std::string(78, 'a') + "€…\" id=lbl_3]\n" +
                "[label \"bad\uFFFD\uFFFD\" id=lbl_4]\n");  // malformed bytes replaced
}

TEST(FormatTest, JsonObjectsHoldOnlyValidUtf8) {
  // nlohmann::json::dump() throws on invalid UTF-8 unless told otherwise; the
  // objects go to other modules, so they are cleaned when built.
  Snapshot s;
  Node n = WithId(MakeNode(Role::kLink, "bad\xff name"), "lnk_1");
  n.description = "\xc3";
  n.actions = {"cl\x80ick"};
  s.roots = {n};
  for (Format f : {Format::kJson, Format::kSemantic}) {
    const FormatOutput out = MustFormat(s, Options(f));
    EXPECT_NO_THROW(out.json.dump()) << FormatName(f);
    EXPECT_NE(out.text.find("bad\uFFFD name"), std::string::npos) << out.text;
  }
  EXPECT_NO_THROW(NodeToJson(n).dump());
}

TEST(FormatTest, PasswordValueNeverPrinted) {
  const Snapshot s = PlayerSnapshot();
  for (Format f : {Format::kCompact, Format::kJson, Format::kSemantic}) {
    const FormatOutput out = MustFormat(s, Options(f));
    EXPECT_EQ(out.text.find("hunter2"), std::string::npos) << FormatName(f);
  }
  const Node& pw = s.roots[0].children[0].children[4];
  ASSERT_EQ(pw.id, "txt_pw");
  EXPECT_FALSE(NodeToJson(pw).contains("value"));
}

TEST(FormatTest, JsonStatsSayWhereTheTreeCameFromWhenAMirrorIsKept) {
  Snapshot s = PlayerSnapshot();
  s.stats.cache = "hit";
  EXPECT_EQ(MustFormat(s, Options(Format::kJson)).json["stats"]["cache"], "hit");
  s.stats.cache = "";  // a backend without a mirror: no such field
  EXPECT_FALSE(MustFormat(s, Options(Format::kJson)).json["stats"].contains("cache"));
}

TEST(FormatTest, JsonShape) {
  const FormatOutput out = MustFormat(PlayerSnapshot(), Options(Format::kJson));
  const json& j = out.json;
  EXPECT_EQ(j["frame"], (json{{"width", 1920}, {"height", 1080}, {"scale", 1.0}}));
  EXPECT_EQ(j["stats"], (json{{"ax_nodes", 12},
                              {"ocr_nodes", 3},
                              {"vision_nodes", 1},
                              {"merged_nodes", 1},
                              {"latency_ms", 42.5}}));
  EXPECT_EQ(
      j["page"],
      (json{
          {"nodes_total", 12}, {"nodes_emitted", 12}, {"truncated", false}, {"next_cursor", ""}}));
  ASSERT_EQ(j["nodes"].size(), 1u);
  const json& app = j["nodes"][0];
  EXPECT_EQ(app["id"], "app_plyr");
  EXPECT_EQ(app["role"], "application");
  EXPECT_EQ(app["pid"], 1234);
  EXPECT_FALSE(app.contains("parent_id"));
  const json& window = app["children"][0];
  EXPECT_EQ(window["bounds"], (json{{"x", 0}, {"y", 0}, {"w", 800}, {"h", 600}}));
  EXPECT_EQ(window["app"], "player");
  EXPECT_EQ(window["states"], (json{"enabled", "showing", "active"}));
  EXPECT_EQ(window["children"].size(), 8u);

  const json& play = window["children"][1];
  EXPECT_EQ(play, (json{{"id", "btn_play"},
                        {"role", "button"},
                        {"name", "Play"},
                        {"bounds", {{"x", 10}, {"y", 5}, {"w", 80}, {"h", 30}}},
                        {"states", {"enabled", "focused", "focusable", "showing"}},
                        {"actions", {"click"}},
                        {"source", "ax"},
                        {"app", ""},
                        {"pid", 0},
                        {"window", ""},
                        {"children", json::array()}}));
  const json& search = window["children"][5];
  EXPECT_EQ(search["value"], "abc");
  EXPECT_FALSE(search.contains("bounds"));
  EXPECT_FALSE(search.contains("confidence"));
  const json& volume = window["children"][6]["children"][0];
  EXPECT_EQ(volume["source"], "vision");
  EXPECT_DOUBLE_EQ(volume["confidence"].get<double>(), 0.83);
  EXPECT_EQ(json::parse(out.text), j);
}

TEST(FormatTest, JsonPageListsOrphansWithParentId) {
  // Preorder: app, window, heading | play, loop, stop | password, search, panel
  // | volume, label, help. Nodes whose parent is on an earlier page are top
  // level and name their parent; a parent's later children are not repeated.
  const Snapshot s = PlayerSnapshot();
  const FormatOutput first = MustFormat(s, Options(Format::kJson, 3));
  EXPECT_TRUE(first.truncated);
  EXPECT_EQ(first.next_cursor, "n:3");
  EXPECT_EQ(first.json["page"]["next_cursor"], "n:3");
  EXPECT_EQ(first.json["nodes"][0]["children"][0]["children"][0]["id"], "hdg_now");

  const FormatOutput third = MustFormat(s, Options(Format::kJson, 3, 0, "n:6"));
  const json& nodes = third.json["nodes"];
  ASSERT_EQ(nodes.size(), 3u);
  for (const json& n : nodes) EXPECT_EQ(n["parent_id"], "win_main");
  EXPECT_EQ(nodes[2]["id"], "pnl_main");
  EXPECT_TRUE(nodes[2]["children"].empty());  // its children are on the next page
  EXPECT_EQ(third.next_cursor, "n:9");

  const FormatOutput fourth = MustFormat(s, Options(Format::kJson, 3, 0, third.next_cursor));
  const json& last = fourth.json["nodes"];
  ASSERT_EQ(last.size(), 3u);
  EXPECT_EQ(last[0]["id"], "sld_vol");
  EXPECT_EQ(last[0]["parent_id"], "pnl_main");
  EXPECT_EQ(last[1]["parent_id"], "pnl_main");
  EXPECT_EQ(last[2]["parent_id"], "win_main");
  EXPECT_FALSE(fourth.truncated);
  EXPECT_EQ(fourth.json["page"]["nodes_emitted"], 3);

  // A page that holds the parent nests the child instead.
  const FormatOutput nested = MustFormat(s, Options(Format::kJson, 2, 0, "n:8"));
  ASSERT_EQ(nested.json["nodes"].size(), 1u);
  EXPECT_EQ(nested.json["nodes"][0]["children"][0]["id"], "sld_vol");
  EXPECT_FALSE(nested.json["nodes"][0]["children"][0].contains("parent_id"));
}

TEST(FormatTest, SemanticFrame) {
  const FormatOutput out = MustFormat(PlayerSnapshot(), Options(Format::kSemantic));
  const json& j = out.json;
  EXPECT_EQ(j["format"], "semantic");
  EXPECT_EQ(j["screen"], (json{{"width", 1920}, {"height", 1080}}));
  EXPECT_EQ(j["windows"],
            (json::array({{{"id", "win_main"},
                           {"title", "Player"},
                           {"focused", true},
                           {"bounds", {{"x", 0}, {"y", 0}, {"width", 800}, {"height", 600}}}}})));
  ASSERT_EQ(j["buttons"].size(), 3u);
  EXPECT_EQ(j["buttons"][0],
            (json{{"id", "btn_play"},
                  {"label", "Play"},
                  {"role", "button"},
                  {"enabled", true},
                  {"bounds", {{"x", 10}, {"y", 5}, {"width", 80}, {"height", 30}}}}));
  EXPECT_EQ(j["buttons"][1]["checked"], true);
  EXPECT_EQ(j["buttons"][1]["role"], "check_box");
  EXPECT_EQ(j["buttons"][2]["enabled"], false);
  ASSERT_EQ(j["text_fields"].size(), 2u);
  EXPECT_EQ(j["text_fields"][0], (json{{"id", "txt_pw"},
                                       {"label", "Password"},
                                       {"value", ""},
                                       {"focused", false},
                                       {"password", true}}));
  EXPECT_EQ(j["text_fields"][1],
            (json{{"id", "txt_find"}, {"label", "Search"}, {"value", "abc"}, {"focused", true}}));
  EXPECT_EQ(j["links"].size(), 1u);
  EXPECT_EQ(j["links"][0]["label"], "Help");
  EXPECT_EQ(j["text_content"], "Now playing\nSay \"hi\" \\ \nbye");
  // Entries: 1 window + 3 buttons + 2 fields + 1 link + 2 texts.
  EXPECT_EQ(out.nodes_emitted, 9);
  EXPECT_EQ(out.nodes_total, 12);
  EXPECT_EQ(json::parse(out.text), j);
}

TEST(FormatTest, BadCursorsAreInvalidArgument) {
  const Snapshot s = PlayerSnapshot();
  for (const char* cursor : {"x", "n:", "n:abc", "n:-1", "n:+1", "n:12", "n:999999999999999999999",
                             "n:3junk", "N:3", " n:3"}) {
    for (Format f : {Format::kCompact, Format::kJson, Format::kSemantic}) {
      const Result<FormatOutput> out = FormatSnapshot(s, Options(f, 0, 0, cursor));
      ASSERT_FALSE(out.ok()) << cursor;
      EXPECT_EQ(out.error().code, ErrorCode::kInvalidArgument);
      EXPECT_NE(out.error().message.find("cursor"), std::string::npos) << out.error().message;
    }
  }
  const Result<FormatOutput> range = FormatSnapshot(s, Options(Format::kCompact, 0, 0, "n:12"));
  EXPECT_NE(range.error().message.find("out of range"), std::string::npos);
  EXPECT_TRUE(FormatSnapshot(s, Options(Format::kCompact, 0, 0, "n:11")).ok());
  EXPECT_FALSE(FormatSnapshot(s, Options(Format::kCompact, -1)).ok());
  EXPECT_FALSE(FormatSnapshot(s, Options(Format::kCompact, 0, -5)).ok());
}

TEST(FormatTest, EmptySnapshot) {
  const FormatOutput compact = MustFormat(Snapshot{}, Options(Format::kCompact, 5));
  EXPECT_EQ(compact.text, "");
  EXPECT_EQ(compact.nodes_total, 0);
  EXPECT_FALSE(compact.truncated);
  const FormatOutput j = MustFormat(Snapshot{}, Options(Format::kJson));
  EXPECT_TRUE(j.json["nodes"].empty());
  EXPECT_FALSE(FormatSnapshot(Snapshot{}, Options(Format::kJson, 0, 0, "n:0")).ok());
}

// A larger tree with real IDs, for paging.
Snapshot BigSnapshot() {
  std::vector<Node> windows;
  for (int w = 0; w < 3; ++w) {
    std::vector<Node> rows;
    for (int r = 0; r < 10; ++r) {
      rows.push_back(MakeNode(
          Role::kListItem, "",
          {MakeNode(Role::kLabel, "Row " + std::to_string(r)), MakeNode(Role::kButton, "Open"),
           MakeNode(Role::kLink, "Details of row " + std::to_string(r))}));
    }
    windows.push_back(MakeNode(
        Role::kWindow, "Window " + std::to_string(w),
        {MakeNode(Role::kTextField, "Filter"), MakeNode(Role::kList, "Items", std::move(rows))}));
  }
  Snapshot s;
  s.frame = Frame{1024, 768, 1.0};
  s.roots.push_back(MakeNode(Role::kApplication, "big", std::move(windows)));
  AssignIds(s.roots);
  return s;
}

// IDs of the nodes a page shows, in page order.
std::vector<std::string> PageIds(const FormatOutput& out, Format format) {
  std::vector<std::string> ids;
  if (format == Format::kCompact) {
    static const std::regex kId(" id=([a-z]+_[0-9a-f]+)[ \\]]");
    for (std::sregex_iterator it(out.text.begin(), out.text.end(), kId), end; it != end; ++it) {
      ids.push_back((*it)[1]);
    }
  } else if (format == Format::kJson) {
    std::function<void(const json&)> walk = [&](const json& nodes) {
      for (const json& n : nodes) {
        ids.push_back(n["id"]);
        walk(n["children"]);
      }
    };
    walk(out.json["nodes"]);
  } else {
    for (const char* list : {"windows", "buttons", "text_fields", "links"}) {
      for (const json& e : out.json[list]) ids.push_back(e["id"]);
    }
  }
  return ids;
}

struct Walk {
  std::vector<std::string> ids;
  std::string text_content;
  int pages = 0;
};

Walk WalkAllPages(const Snapshot& s, Format format, int max_nodes, int max_chars) {
  Walk walk;
  std::string cursor;
  do {
    const FormatOutput page = MustFormat(s, Options(format, max_nodes, max_chars, cursor));
    EXPECT_GE(page.nodes_emitted, 1);
    if (max_nodes > 0) {
      EXPECT_LE(page.nodes_emitted, max_nodes);
    }
    EXPECT_EQ(page.truncated, !page.next_cursor.empty());
    if (format == Format::kCompact && max_chars > 0 && page.nodes_emitted > 1) {
      // The whole text, trailer included, keeps to the budget.
      EXPECT_LE(page.text.size(), static_cast<size_t>(max_chars)) << page.text;
    }
    if (format == Format::kSemantic) {
      const std::string text = page.json["text_content"];
      if (!text.empty()) walk.text_content += (walk.text_content.empty() ? "" : "\n") + text;
    }
    const std::vector<std::string> ids = PageIds(page, format);
    walk.ids.insert(walk.ids.end(), ids.begin(), ids.end());
    cursor = page.next_cursor;
    if (++walk.pages > 1000) break;  // a cursor that never ends
  } while (!cursor.empty());
  return walk;
}

TEST(FormatTest, PagesVisitEveryNodeExactlyOnce) {
  const Snapshot s = BigSnapshot();
  const std::vector<std::string> all = CollectIds(s.roots);
  ASSERT_EQ(all.size(), 1u + 3 * (1 + 1 + 1 + 10 * 4));
  for (Format format : {Format::kCompact, Format::kJson}) {
    EXPECT_EQ(WalkAllPages(s, format, 0, 0).pages, 1);
    for (const auto& [max_nodes, max_chars] :
         std::vector<std::pair<int, int>>{{1, 0}, {7, 0}, {0, 1}, {0, 250}, {0, 1000}, {5, 300}}) {
      const Walk walk = WalkAllPages(s, format, max_nodes, max_chars);
      EXPECT_EQ(walk.ids, all) << FormatName(format) << " max_nodes=" << max_nodes
                               << " max_chars=" << max_chars;
      EXPECT_GT(walk.pages, 1);
    }
  }
}

TEST(FormatTest, SemanticPagesVisitEveryEntryExactlyOnce) {
  const Snapshot s = BigSnapshot();
  const Walk whole = WalkAllPages(s, Format::kSemantic, 0, 0);
  EXPECT_EQ(whole.pages, 1);
  // 3 windows, 30 buttons, 3 fields and 30 links; 30 labels in text_content.
  EXPECT_EQ(whole.ids.size(), 66u);
  for (const auto& [max_nodes, max_chars] :
       std::vector<std::pair<int, int>>{{1, 0}, {10, 0}, {0, 1}, {0, 400}, {7, 200}}) {
    const Walk walk = WalkAllPages(s, Format::kSemantic, max_nodes, max_chars);
    std::vector<std::string> sorted_whole = whole.ids;
    std::vector<std::string> sorted_walk = walk.ids;
    std::sort(sorted_whole.begin(), sorted_whole.end());
    std::sort(sorted_walk.begin(), sorted_walk.end());
    EXPECT_EQ(sorted_walk, sorted_whole) << max_nodes << " " << max_chars;
    EXPECT_EQ(walk.text_content, whole.text_content);
  }
}

TEST(FormatTest, CompactTruncationTrailer) {
  const Snapshot s = BigSnapshot();
  const FormatOutput out = MustFormat(s, Options(Format::kCompact, 3));
  EXPECT_TRUE(out.truncated);
  EXPECT_EQ(out.nodes_emitted, 3);
  EXPECT_EQ(out.next_cursor, "n:3");
  const std::string trailer =
      "… " + std::to_string(out.nodes_total - 3) + " more nodes (cursor=n:3)\n";
  ASSERT_GE(out.text.size(), trailer.size());
  EXPECT_EQ(out.text.substr(out.text.size() - trailer.size()), trailer);
  // Indentation is absolute depth, also on later pages.
  const FormatOutput next = MustFormat(s, Options(Format::kCompact, 1, 0, "n:4"));
  EXPECT_EQ(next.text.substr(0, 7), "      [");  // depth 3: a list item
}

TEST(FormatTest, AnApplicationSaysItsToolkitInEveryFormat) {
  Snapshot s = PlayerSnapshot();
  s.roots[0].toolkit = "qt5";
  EXPECT_NE(MustFormat(s, Options(Format::kCompact)).text.find("pid=1234 toolkit=qt5]"),
            std::string::npos);
  const json j = NodeToJson(s.roots[0]);
  EXPECT_EQ(j.value("toolkit", ""), "qt5");
  EXPECT_FALSE(NodeToJson(s.roots[0].children[0]).contains("toolkit")) << "only where known";
  auto back = NodesFromJson(json::array({j}));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].toolkit, "qt5") << "a stored observation keeps it";
}

TEST(FormatTest, NodeToJsonRecursesOnRequest) {
  const Snapshot s = PlayerSnapshot();
  const json with = NodeToJson(s.roots[0]);
  EXPECT_EQ(with["children"][0]["children"].size(), 8u);
  const json without = NodeToJson(s.roots[0], false);
  EXPECT_FALSE(without.contains("children"));
}

}  // namespace
}  // namespace uiscope

namespace uiscope {
namespace {

TEST(FormatEnvelopeTest, IsTheJsonObjectWithoutNodes) {
  Snapshot s;
  s.frame = Frame{1920, 1080, 1.0};
  s.stats.ax_nodes = 3;
  Node app;
  app.role = Role::kApplication;
  app.name = "a";
  app.id = "app_0001";
  s.roots.push_back(app);
  FormatOptions o;
  o.format = Format::kJson;
  auto full = FormatSnapshot(s, o);
  ASSERT_TRUE(full.ok());
  nlohmann::json without_nodes = full->json;
  without_nodes.erase("nodes");
  EXPECT_EQ(SnapshotEnvelope(s, *full), without_nodes);
}

}  // namespace
}  // namespace uiscope
