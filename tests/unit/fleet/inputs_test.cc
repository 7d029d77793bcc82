// The inputs of `yardstick merge` (fleet/inputs.h): files, directories (run.json and *.run.json
// only) and @LIST files walked to the documents they name, bad inputs as clear errors, and one
// run document read and checked.
#include "fleet/inputs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/run_document_json.h"
#include "validate/archive_test_util.h"

namespace ys::fleet {
namespace {

std::vector<std::string> InputsVisited(const std::vector<std::string>& inputs,
                                       Status* status = nullptr) {
  std::vector<std::string> out;
  Status s = ForEachInputDocument(inputs, [&](const std::string& p) { out.push_back(p); });
  if (status) *status = s;
  std::sort(out.begin(), out.end());  // directories are walked in directory order
  return out;
}

TEST(FleetInputsTest, InputsAreFilesDirectoriesAndLists) {
  archive_testing::ScopedTempDir tmp;
  archive_testing::WriteFile(tmp.Sub("jobA/n1/run.json"), "{}");
  archive_testing::WriteFile(tmp.Sub("jobA/n2/run.json"), "{}");
  archive_testing::WriteFile(tmp.Sub("jobA/n2/report.json"), "{}");  // not a run document
  archive_testing::WriteFile(tmp.Sub("jobB/n3.run.json"), "{}");
  archive_testing::WriteFile(tmp.Sub("loose.json"), "{}");
  archive_testing::WriteFile(tmp.Sub("list.txt"), "# the fleet\n" + tmp.Sub("jobB") + "\n\n  " +
                                                      tmp.Sub("loose.json") + "  \n");
  EXPECT_EQ(InputsVisited({tmp.Sub("jobA")}),
            (std::vector<std::string>{tmp.Sub("jobA/n1/run.json"), tmp.Sub("jobA/n2/run.json")}));
  EXPECT_EQ(InputsVisited({"@" + tmp.Sub("list.txt")}),
            (std::vector<std::string>{tmp.Sub("jobB/n3.run.json"), tmp.Sub("loose.json")}));
  // A file is itself whatever its name; one that does not exist is the reader's to name.
  EXPECT_EQ(InputsVisited({tmp.Sub("jobA/n2/report.json"), tmp.Sub("nope")}),
            (std::vector<std::string>{tmp.Sub("jobA/n2/report.json"), tmp.Sub("nope")}));
}

TEST(FleetInputsTest, BadInputsAreClearErrors) {
  archive_testing::ScopedTempDir tmp;
  archive_testing::WriteFile(tmp.Sub("empty/notes.txt"), "x");
  Status s;
  InputsVisited({tmp.Sub("empty")}, &s);
  EXPECT_NE(s.message().find("no run documents"), std::string::npos) << s.message();
  InputsVisited({"@" + tmp.Sub("no-list.txt")}, &s);
  EXPECT_NE(s.message().find("cannot read the list"), std::string::npos) << s.message();
  archive_testing::WriteFile(tmp.Sub("self.txt"), "@" + tmp.Sub("self.txt") + "\n");
  InputsVisited({"@" + tmp.Sub("self.txt")}, &s);
  EXPECT_NE(s.message().find("includes itself"), std::string::npos) << s.message();
  archive_testing::WriteFile(tmp.Sub("list.txt"), "\n" + tmp.Sub("empty") + "\n");
  InputsVisited({"@" + tmp.Sub("list.txt")}, &s);
  EXPECT_NE(s.message().find(tmp.Sub("list.txt") + ":2: "), std::string::npos) << s.message();
}

TEST(FleetInputsTest, ReadRunDocumentNeedsAHostName) {
  archive_testing::ScopedTempDir tmp;
  RunDocument d;
  d.command = "run";
  d.started_at = "2026-11-29T16:40:03Z";
  d.host.hostname = "n1";
  archive_testing::WriteFile(tmp.Sub("run.json"), DumpJson(ToJson(d)));
  auto doc = ReadRunDocument(tmp.Sub("run.json"));
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->host.hostname, "n1");
  d.host.hostname.clear();
  archive_testing::WriteFile(tmp.Sub("nameless.json"), DumpJson(ToJson(d)));
  EXPECT_EQ(ReadRunDocument(tmp.Sub("nameless.json")).status().message(),
            tmp.Sub("nameless.json") + ": run.host.hostname: empty (merge names nodes by it)");
  EXPECT_FALSE(ReadRunDocument(tmp.Sub("missing.json")).ok());
}

}  // namespace
}  // namespace ys::fleet
