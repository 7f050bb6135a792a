// Fields named by the label beside them, top levels given window roles, the
// marks every format prints for an inferred name, and apps known by the
// directory they are installed in: plain data in, plain data out.
#include "core/label_names.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/app_name.h"
#include "core/format.h"
#include "core/top_levels.h"
#include "test_trees.h"

namespace uiscope {
namespace {

using testing::MakeNode;

Node At(Node n, int x, int y, int w, int h) {
  n.bounds = Rect{x, y, w, h};
  return n;
}
Node Label(std::string text, int x, int y, int w = 72, int h = 34) {
  return At(MakeNode(Role::kLabel, std::move(text)), x, y, w, h);
}
Node Field(Role role, int x, int y, int w = 168, int h = 34) {
  return At(MakeNode(role), x, y, w, h);
}

// The GTK 3 form of tests/fixtures/named_by_label.py as GTK lays it out:
// a grid of label | field rows, one field under a button, one under a label
// in a box of its own.
std::vector<Node> Form() {
  Node street_box = At(MakeNode(Role::kPanel, "",
                                {Label("Street", 141, 244, 168, 17),
                                 Field(Role::kTextField, 141, 265)}),
                       141, 244, 168, 55);
  Node grid = At(MakeNode(Role::kPanel, "",
                          {Label("Name:", 57, 76), Field(Role::kTextField, 141, 76),
                           Label("City", 57, 118), Field(Role::kTextField, 141, 118),
                           Label("Width", 57, 160), Field(Role::kSpinButton, 141, 160),
                           At(MakeNode(Role::kButton, "Notes"), 57, 202, 72, 34),
                           Field(Role::kTextField, 141, 202), std::move(street_box)}),
                 57, 76, 488, 288);
  Node window = At(MakeNode(Role::kWindow, "named by label", {std::move(grid)}), 40, 40, 522, 345);
  return {MakeNode(Role::kApplication, "named-by-label", {std::move(window)})};
}

const Node& GridChild(const std::vector<Node>& roots, size_t i) {
  return roots[0].children[0].children[0].children[i];
}

TEST(LabelNamesTest, AFieldTakesTheNameOfTheLabelOnItsLeftWithoutTheColon) {
  std::vector<Node> roots = Form();
  NameFieldsByLabels(roots);
  EXPECT_EQ(GridChild(roots, 1).name, "Name");
  EXPECT_EQ(GridChild(roots, 1).name_from, NameFrom::kLabel);
  EXPECT_EQ(GridChild(roots, 3).name, "City");
  EXPECT_EQ(GridChild(roots, 5).name, "Width");
  EXPECT_EQ(GridChild(roots, 5).role, Role::kSpinButton);
  // Labels keep their own names.
  EXPECT_EQ(GridChild(roots, 0).name, "Name:");
  EXPECT_EQ(GridChild(roots, 0).name_from, NameFrom::kOwn);
}

TEST(LabelNamesTest, AFieldUnderALabelInItsBoxTakesItsName) {
  std::vector<Node> roots = Form();
  NameFieldsByLabels(roots);
  const Node& street = GridChild(roots, 8).children[1];
  EXPECT_EQ(street.name, "Street");
  EXPECT_EQ(street.name_from, NameFrom::kLabel);
}

TEST(LabelNamesTest, AButtonIsNoLabelAndALabelAcrossItNamesNothing) {
  std::vector<Node> roots = Form();
  NameFieldsByLabels(roots);
  EXPECT_EQ(GridChild(roots, 7).name, "");
  EXPECT_EQ(GridChild(roots, 7).name_from, NameFrom::kOwn);

  // "Size" [button] [field]: the button stands between them.
  std::vector<Node> row = {MakeNode(
      Role::kPanel, "",
      {Label("Size", 0, 0, 40, 30), At(MakeNode(Role::kButton, "Lock"), 50, 0, 30, 30),
       Field(Role::kTextField, 90, 0, 100, 30)})};
  NameFieldsByLabels(row);
  EXPECT_EQ(row[0].children[2].name, "");
}

TEST(LabelNamesTest, ALabelNamesOneFieldTheNearest) {
  // "Size" [w] [h]: only w, the nearest, is Size.
  std::vector<Node> row = {MakeNode(Role::kPanel, "",
                                    {Label("Size", 0, 0, 40, 30),
                                     Field(Role::kSpinButton, 50, 0, 60, 30),
                                     Field(Role::kSpinButton, 120, 0, 60, 30)})};
  NameFieldsByLabels(row);
  EXPECT_EQ(row[0].children[1].name, "Size");
  EXPECT_EQ(row[0].children[2].name, "");
}

TEST(LabelNamesTest, NamedFieldsAndFarOrOtherRowsLabelsAreLeftAlone) {
  Node named = Field(Role::kTextField, 100, 0);
  named.name = "Email";
  std::vector<Node> roots = {MakeNode(
      Role::kPanel, "",
      {Label("Email", 0, 0, 60, 30), std::move(named),
       // A label of another row, far below and to the left.
       Label("Comment", 0, 200, 60, 30), Field(Role::kTextField, 100, 100),
       // A field with no box cannot be placed.
       MakeNode(Role::kTextField)})};
  NameFieldsByLabels(roots);
  EXPECT_EQ(roots[0].children[1].name, "Email");
  EXPECT_EQ(roots[0].children[1].name_from, NameFrom::kOwn);
  EXPECT_EQ(roots[0].children[3].name, "");
  EXPECT_EQ(roots[0].children[4].name, "");
}

TEST(LabelNamesTest, ALabelRepeatingANamedFieldsNameIsThatFields) {
  // The file chooser: its entry named by LABELLED_BY already; the label
  // beside it must not name another field.
  Node entry = Field(Role::kTextField, 66, 30, 400, 34);
  entry.name = "Name";
  entry.name_from = NameFrom::kLabel;
  std::vector<Node> roots = {MakeNode(
      Role::kPanel, "",
      {Label("Name:", 11, 38, 43, 17), std::move(entry), Field(Role::kComboBox, 11, 70, 200, 30)})};
  NameFieldsByLabels(roots);
  EXPECT_EQ(roots[0].children[2].name, "");
}

TEST(LabelNamesTest, ALabelNamesAFieldWrappedInAScrollPaneAndViewport) {
  // Swing as java-atk-wrapper shows a GridBagLayout form: the text area sits
  // in a viewport in a scroll pane, its label above the scroll pane; the
  // spin button's own entry sits in a panel inside the spin button.
  Node area = At(MakeNode(Role::kPanel, "", {Field(Role::kTextArea, 6, 186, 264, 60)}), 6, 186,
                 264, 60);
  Node scroll = At(MakeNode(Role::kScrollPane, "", {std::move(area)}), 5, 185, 267, 63);
  Node entry = At(MakeNode(Role::kPanel, "", {Field(Role::kTextField, 102, 80, 74, 16)}), 102, 80,
                  74, 16);
  Node spin = At(MakeNode(Role::kSpinButton, "", {std::move(entry)}), 100, 78, 92, 20);
  std::vector<Node> roots = {At(MakeNode(Role::kPanel, "",
                                         {std::move(spin), Label("Postcode:", 5, 80, 71, 15),
                                          Label("Instructions", 5, 162, 85, 15), std::move(scroll)}),
                                1, 20, 427, 265)};
  NameFieldsByLabels(roots);
  const Node& text_area = roots[0].children[3].children[0].children[0];
  EXPECT_EQ(text_area.name, "Instructions");
  EXPECT_EQ(text_area.name_from, NameFrom::kLabel);
  EXPECT_EQ(roots[0].children[0].name, "Postcode");
  EXPECT_EQ(roots[0].children[0].children[0].children[0].name, "") << "the spin button's own part";
}

TEST(LabelNamesTest, LabelTextLosesSpaceAndOneColon) {
  EXPECT_EQ(NameFromLabelText("Name:"), "Name");
  EXPECT_EQ(NameFromLabelText("  Width : "), "Width");
  EXPECT_EQ(NameFromLabelText("Ratio::"), "Ratio:");
  EXPECT_EQ(NameFromLabelText("名前\xEF\xBC\x9A"), "名前");
  EXPECT_EQ(NameFromLabelText(":"), "");
}

TEST(LabelNamesTest, TheCompactLineAndTheJsonNodeSayTheNameIsALabels) {
  std::vector<Node> roots = Form();
  NameFieldsByLabels(roots);
  Snapshot snapshot;
  snapshot.roots = roots;
  FormatOptions compact;
  compact.format = Format::kCompact;
  auto text = FormatSnapshot(snapshot, compact);
  ASSERT_TRUE(text.ok()) << text.error().ToString();
  EXPECT_NE(text->text.find("[text_field \"City\" name_from=label"), std::string::npos)
      << text->text;
  EXPECT_NE(text->text.find("[label \"City\" bounds="), std::string::npos) << text->text;

  FormatOptions json;
  json.format = Format::kJson;
  auto out = FormatSnapshot(snapshot, json);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->text.find("\"name_from\":\"label\""), std::string::npos);
  // Read back from JSON (stored observations), the mark stays.
  auto back = NodesFromJson(nlohmann::json::array({NodeToJson(GridChild(roots, 3), false)}));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].name_from, NameFrom::kLabel);
}

TEST(TopLevelsTest, AGenericTopLevelIsAWindowAndAModalOneADialog) {
  Node frame = MakeNode(Role::kWindow, "named by label 4");
  Node modal = MakeNode(Role::kWindow, "Export As");
  modal.states.Set(State::kModal);
  Node filler = MakeNode(Role::kPanel, "Save As");
  Node inner = MakeNode(Role::kPanel, "inner");
  Node alert = MakeNode(Role::kAlert, "Error");
  Node app = MakeNode(Role::kApplication, "app",
                      {frame, modal, MakeNode(Role::kPanel, "Main", {inner}), filler, alert});
  NormaliseTopLevels(app, [](const Node& top) {
    return top.name == "Save As" ? XWindowKind::kDialog : XWindowKind::kNormal;
  });
  EXPECT_EQ(app.children[0].role, Role::kWindow);
  EXPECT_EQ(app.children[1].role, Role::kDialog);
  EXPECT_EQ(app.children[2].role, Role::kWindow);
  EXPECT_EQ(app.children[2].children[0].role, Role::kPanel);  // only top levels change
  EXPECT_EQ(app.children[3].role, Role::kDialog);              // its X window is a dialog
  EXPECT_EQ(app.children[4].role, Role::kAlert);
}

TEST(TopLevelsTest, WithoutAnXAnswerOnlyTheTreesFactsCount) {
  Node app = MakeNode(Role::kApplication, "app", {MakeNode(Role::kWindow, "Dialog-looking title")});
  NormaliseTopLevels(app, {});
  EXPECT_EQ(app.children[0].role, Role::kWindow);
  Node not_app = MakeNode(Role::kWindow, "w", {MakeNode(Role::kPanel, "p")});
  NormaliseTopLevels(not_app, {});
  EXPECT_EQ(not_app.children[0].role, Role::kPanel);
}

TEST(AppNameTest, AnAppIsKnownByTheDirectoryItIsInstalledIn) {
  EXPECT_EQ(InstallDirName("/usr/lib/libreoffice/program/soffice.bin"), "libreoffice");
  EXPECT_EQ(InstallDirName("/usr/lib/firefox-esr/firefox-esr"), "firefox-esr");
  EXPECT_EQ(InstallDirName("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/WebKitWebProcess"),
            "webkit2gtk-4.0");
  EXPECT_EQ(InstallDirName("/opt/zoom/zoom"), "zoom");
  EXPECT_EQ(InstallDirName("/usr/bin/gedit"), "");
  EXPECT_EQ(InstallDirName("/usr/lib/helper"), "");  // directly in the root: no app's directory
  EXPECT_EQ(InstallDirName("soffice.bin"), "");
  EXPECT_TRUE(AppNameMatches("libreoffice", "soffice", "/usr/lib/libreoffice/program/soffice.bin"));
  EXPECT_TRUE(AppNameMatches("Firefox-ESR", "Firefox", "/usr/lib/firefox-esr/firefox-esr"));
  EXPECT_FALSE(AppNameMatches("program", "soffice", "/usr/lib/libreoffice/program/soffice.bin"));
  EXPECT_FALSE(AppNameMatches("lib", "gedit", "/usr/lib/gedit/gedit"));
}

}  // namespace
}  // namespace uiscope
