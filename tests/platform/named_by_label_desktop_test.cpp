// Desktop tests of what the AT-SPI backend reads beyond each object's own
// properties, against tests/fixtures/named_by_label.py on a real headless
// desktop: fields named by a LABELLED_BY relation or by the label beside
// them (and found by it, in a GTK 3 Save dialog too), GTK 4 top levels that
// are windows and dialogs though GTK calls them frames and fillers, and apps
// asked for by the names people use (python3, a launcher, a window title).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "platform/accessibility.h"
#include "platform/process_name.h"
#include "support/desktop_fixture.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::FindNode;
using test::TestDesktop;

AtspiOptions OptionsFor(const DesktopInfo& info) {
  AtspiOptions o;
  o.session_bus_address = info.dbus_address;
  o.display = info.display_name;
  return o;
}

// Starts the fixture with `args` and waits for its "ready PID" line.
std::unique_ptr<Process> LaunchNamedByLabel(std::vector<std::string> args,
                                            std::string launcher = "") {
  SpawnOptions options;
  if (launcher.empty()) {
    options.argv = {"/usr/bin/python3", UISCOPE_NAMED_BY_LABEL};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
  } else {
    // A launcher that starts the app as its child and stays: its launch name
    // (argv[0]) is `launcher`, its process a shell.
    std::string command = "/usr/bin/python3 " UISCOPE_NAMED_BY_LABEL;
    for (const std::string& a : args) command += " '" + a + "'";
    options.executable = "/bin/sh";
    options.argv = {launcher, "-c", command + " & wait"};
  }
  options.capture_stdout = true;
  std::unique_ptr<Process> app = TestDesktop::Shared().Launch(std::move(options));
  if (!app) return nullptr;
  while (true) {
    auto line = app->ReadLine(milliseconds(20000));
    if (!line.ok()) {
      ADD_FAILURE() << "the fixture did not get ready: " << line.error().ToString();
      return nullptr;
    }
    if (line->starts_with("ready ")) return app;
  }
}

// Polls until the request's tree holds a node that `done` accepts.
Result<TreeResult> TreeWhen(Accessibility& ax, const TreeRequest& request,
                            const std::function<bool(const TreeResult&)>& done) {
  Result<TreeResult> tree = MakeError(ErrorCode::kNotFound, "not yet");
  test::WaitUntil(
      [&] {
        tree = ax.Tree(request);
        return tree.ok() && done(*tree);
      },
      milliseconds(10000));
  return tree;
}

const Node* Top(const TreeResult& tree, const std::string& name) {
  for (const Node& app : tree.apps) {
    for (const Node& top : app.children) {
      if (top.name == name) return &top;
    }
  }
  return nullptr;
}

struct CliRun {
  int exit_code = -1;
  std::string out;
};

CliRun RunCli(const std::string& args) {
  std::string env = "env -u AT_SPI_BUS_ADDRESS OMP_THREAD_LIMIT=1";
  for (const auto& [k, v] : TestDesktop::Shared().Environment()) env += " " + k + "='" + v + "'";
  CliRun r;
  // Stdout alone: warnings (a big file list the chooser shows, say) go to
  // stderr and must not spoil the JSON.
  FILE* p = popen((env + " " UISCOPE_CLI " " + args + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(ProcessNameTest, AProcessAnswersToItsNamesAndItsParentsNotToOthers) {
  EXPECT_EQ(ParentProcess(getpid()), getppid());
  EXPECT_TRUE(ProcessExecutable(getpid()).ends_with("/uiscope_named_by_label_tests"));
  EXPECT_TRUE(ProcessAnswersTo("uiscope_named_by_label_tests", getpid()));
  EXPECT_FALSE(ProcessAnswersTo("named-by-label", getpid()));
  EXPECT_FALSE(ProcessAnswersTo("anything", 0));
  EXPECT_FALSE(ParentAnswersTo("anything", 1));
  EXPECT_EQ(ProcessExecutable(-1), "");
}

class NamedByLabelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(TestDesktop::Shared().ok()) << TestDesktop::Shared().error();
    gtk3_ = LaunchNamedByLabel({"--save-dialog"}).release();
    gtk4_ = LaunchNamedByLabel({"--gtk", "4", "--name", "named-by-label-4"}).release();
  }
  static void TearDownTestSuite() {
    delete gtk3_;
    delete gtk4_;
    gtk3_ = gtk4_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(gtk3_, nullptr);
    ASSERT_NE(gtk4_, nullptr);
    auto ax = ConnectAtspi(OptionsFor(TestDesktop::Shared().info()));
    ASSERT_TRUE(ax.ok()) << ax.error().ToString();
    ax_ = std::move(ax).value();
  }

  static Process* gtk3_;
  static Process* gtk4_;
  std::unique_ptr<Accessibility> ax_;
};
Process* NamedByLabelTest::gtk3_ = nullptr;
Process* NamedByLabelTest::gtk4_ = nullptr;

TEST_F(NamedByLabelTest, FieldsAreNamedByTheRelationOrTheLabelBesideThem) {
  TreeRequest request;
  request.pid = gtk3_->pid();
  auto tree = TreeWhen(*ax_, request, [](const TreeResult& t) {
    return Top(t, "named by label") != nullptr && Top(t, "Save Report") != nullptr;
  });
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  const Node* form = Top(*tree, "named by label");
  ASSERT_NE(form, nullptr);
  const std::vector<Node> in_form = {*form};
  // "Name:" stands on the entry's right: only the relation names it.
  for (auto [role, name] : {std::pair{Role::kTextField, "Name"}, {Role::kTextField, "City"},
                            {Role::kTextField, "Street"}, {Role::kSpinButton, "Width"}}) {
    const Node* field = FindNode(in_form, role, name);
    ASSERT_NE(field, nullptr) << name;
    EXPECT_EQ(field->name_from, NameFrom::kLabel) << name;
  }
  // The entry beside the "Notes" button: a button is no label.
  int unnamed = 0;
  ForEachNode(in_form, [&](const Node& n, int) {
    unnamed += n.role == Role::kTextField && n.name.empty() ? 1 : 0;
  });
  EXPECT_EQ(unnamed, 1);
  // Labels keep their names; a named control is not renamed.
  EXPECT_NE(FindNode(in_form, Role::kLabel, "Name:"), nullptr);
  EXPECT_NE(FindNode(in_form, Role::kButton, "Notes"), nullptr);

  // GTK 3's file chooser entry: LABELLED_BY "Name:".
  const Node* save = Top(*tree, "Save Report");
  ASSERT_NE(save, nullptr);
  EXPECT_EQ(save->role, Role::kDialog);
  const std::vector<Node> in_save{*save};  // FindNode points into it: it must outlive `entry`
  const Node* entry = FindNode(in_save, Role::kTextField, "Name");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name_from, NameFrom::kLabel);
}

TEST_F(NamedByLabelTest, FindFindsTheSaveDialogsNameField) {
  TreeRequest request;
  request.pid = gtk3_->pid();
  ASSERT_TRUE(TreeWhen(*ax_, request, [](const TreeResult& t) {
                return Top(t, "Save Report") != nullptr;
              }).ok());
  const std::string display = TestDesktop::Shared().info().display_name;
  CliRun found = RunCli("find Name --role text_field --app named-by-label --json --display " +
                        display);
  ASSERT_EQ(found.exit_code, 0) << found.out;
  auto j = nlohmann::json::parse(found.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << found.out;
  std::string text = j.dump();
  EXPECT_NE(text.find("\"name\":\"Name\""), std::string::npos) << found.out;
  EXPECT_NE(text.find("\"name_from\":\"label\""), std::string::npos) << found.out;

  CliRun observed =
      RunCli("observe --app named-by-label --sources ax --display " + display);
  const size_t city = observed.out.find("[text_field \"City\" ");
  ASSERT_NE(city, std::string::npos) << observed.out;
  const std::string line = observed.out.substr(city, observed.out.find('\n', city) - city);
  EXPECT_NE(line.find(" name_from=label"), std::string::npos) << line;
}

TEST_F(NamedByLabelTest, Gtk4TopLevelsAreWindowsAndDialogs) {
  TreeRequest request;
  request.pid = gtk4_->pid();
  auto tree = TreeWhen(*ax_, request, [](const TreeResult& t) {
    return Top(t, "Palette") != nullptr && Top(t, "Save As") != nullptr &&
           Top(t, "Find Text") != nullptr && Top(t, "Export As") != nullptr;
  });
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Top(*tree, "named by label 4")->role, Role::kWindow);
  EXPECT_EQ(Top(*tree, "Export As")->role, Role::kDialog);  // modal
  EXPECT_EQ(Top(*tree, "Find Text")->role, Role::kDialog);  // X: a dialog, transient
  EXPECT_EQ(Top(*tree, "Save As")->role, Role::kDialog);    // a filler, X: a dialog
  EXPECT_EQ(Top(*tree, "Palette")->role, Role::kWindow);    // a filler, X: normal
  EXPECT_EQ(Top(*tree, "Save As")->toolkit_role, "filler");

  CliRun waited = RunCli("wait-for --name \"Save As\" --role dialog --timeout-ms 5000 --display " +
                         TestDesktop::Shared().info().display_name);
  EXPECT_EQ(waited.exit_code, 0) << waited.out;
}

TEST_F(NamedByLabelTest, AppsAreFoundByExecutableLauncherAndWindowTitle) {
  // The process runs python3; the bus knows it as "named-by-label".
  TreeRequest by_executable;
  by_executable.app_name = "python3";
  auto tree = TreeWhen(*ax_, by_executable, [&](const TreeResult& t) {
    for (const Node& app : t.apps) {
      if (app.pid == gtk3_->pid()) return true;
    }
    return false;
  });
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();

  TreeRequest by_title;
  by_title.app_name = "Named By Label 4";
  tree = ax_->Tree(by_title);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(tree->apps.size(), 1u);
  EXPECT_EQ(tree->apps[0].pid, gtk4_->pid());

  // A name the accessible name answers to still wins over the process's.
  TreeRequest by_name;
  by_name.app_name = "named-by-label-4";
  tree = ax_->Tree(by_name);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(tree->apps.size(), 1u);

  std::unique_ptr<Process> launched = LaunchNamedByLabel({"--name", "launched-app"},
                                                         "report-launcher");
  ASSERT_NE(launched, nullptr);
  TreeRequest by_launcher;
  by_launcher.app_name = "report-launcher";
  tree = TreeWhen(*ax_, by_launcher, [](const TreeResult& t) {
    return t.apps.size() == 1 && t.apps[0].name == "launched-app";
  });
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();

  CliRun observed = RunCli("observe --app python3 --sources ax --display " +
                           TestDesktop::Shared().info().display_name);
  EXPECT_EQ(observed.exit_code, 0) << observed.out;
  EXPECT_EQ(observed.out.find("not on the accessibility bus"), std::string::npos) << observed.out;
  EXPECT_NE(observed.out.find("named-by-label"), std::string::npos) << observed.out;
}

}  // namespace
}  // namespace uiscope
