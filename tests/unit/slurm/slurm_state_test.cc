#include "slurm/slurm_state.h"

#include <gtest/gtest.h>

namespace ys::slurm {
namespace {

// Recorded from Slurm 22.05 (`scontrol show job 3` on the test cluster).
constexpr const char* kCompletedJob = R"(JobId=3 JobName=j.sh
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901757 Nice=0 Account=(null) QOS=(null)
   JobState=COMPLETED Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=2026-11-29T19:11:04 EligibleTime=2026-11-29T19:11:04
   AccrueTime=2026-11-29T19:11:04
   StartTime=2026-11-29T19:11:07 EndTime=2026-11-29T19:11:07 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-29T19:11:07 Scheduler=Main
   Partition=test AllocNode:Sid=localhost:1565
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=vm
   Command=/tmp/dir with space/JobState=FAILED
   WorkDir=/work/wt-slurm
)";

constexpr const char* kPendingJob = R"(JobId=4 JobName=ys_llama
   JobState=PENDING Reason=Nodes_required_for_job_are_DOWN,_DRAINED_or_reserved_for_jobs_in_higher_priority_partitions Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   SubmitTime=2026-11-29T19:11:04 EligibleTime=2026-11-29T19:11:04
   StartTime=2027-01-01T00:00:00 EndTime=Unknown Deadline=N/A
   NodeList=
)";

TEST(SlurmStateTest, ScontrolShowJob) {
  auto j = ParseScontrolJob(kCompletedJob);
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ(j->job_id, "3");
  EXPECT_EQ(j->name, "j.sh");
  EXPECT_EQ(j->state, "COMPLETED");  // the first JobState, not the one in a path further down
  EXPECT_EQ(j->reason, "None");
  EXPECT_EQ(j->exit_code, "0:0");
  EXPECT_EQ(j->node_list, "vm");
  EXPECT_EQ(j->submit_time, "2026-11-29T19:11:04");
  EXPECT_EQ(j->start_time, "2026-11-29T19:11:07");
  EXPECT_TRUE(j->Ended());
  ASSERT_TRUE(j->SubmitToStartSeconds().has_value());
  EXPECT_DOUBLE_EQ(*j->SubmitToStartSeconds(), 3.0);

  auto p = ParseScontrolJob(kPendingJob);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->state, "PENDING");
  EXPECT_FALSE(p->Ended());
  EXPECT_EQ(p->end_time, "");
  EXPECT_EQ(p->node_list, "");
  EXPECT_FALSE(p->SubmitToStartSeconds().has_value());  // a forecast start is not a latency
}

TEST(SlurmStateTest, ScontrolShowJobMalformed) {
  for (const char* bad : {"", "garbage", "JobId=3", "JobState=RUNNING", "JobId=x JobState=RUNNING",
                          "JobId=3 JobState=RUNNING SubmitTime=yesterday",
                          "JobId=3 JobState=RUNNING StartTime=2026-13-01T00:00:00",
                          "JobId=3 JobState=RUNNING EndTime=2026-11-29T19:11:04Z",
                          "slurm_load_jobs error: Invalid job id specified"}) {
    EXPECT_FALSE(ParseScontrolJob(bad).ok()) << bad;
  }
}

TEST(SlurmStateTest, Times) {
  auto a = ParseSlurmTime("2026-11-29T19:11:04");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->has_value());
  auto b = ParseSlurmTime("2026-11-30T19:11:04");
  EXPECT_EQ(**b - **a, 86400);
  for (const char* none : {"Unknown", "None", "N/A", ""}) {
    auto n = ParseSlurmTime(none);
    ASSERT_TRUE(n.ok());
    EXPECT_FALSE(n->has_value());
  }
  for (const char* bad :
       {"2026-11-29", "2026-11-29 19:11:04", "2026-11-29T19:11:04.5", "2026-11-29T25:00:00", "x"}) {
    EXPECT_FALSE(ParseSlurmTime(bad).ok()) << bad;
  }
}

TEST(SlurmStateTest, Squeue) {
  auto q = ParseSqueue("12 PENDING\n13 RUNNING\n  14   COMPLETING  \n\n");
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(q->size(), 3u);
  EXPECT_EQ((*q)[2].job_id, "14");
  EXPECT_EQ((*q)[2].state, "COMPLETING");
  EXPECT_TRUE(ParseSqueue("")->empty());
  // "12 " (found by fuzzing): a job id followed by blanks only threw std::out_of_range.
  for (const char* bad : {"12", "12 ", "  12\t ", "12 RUNNING extra", "abc RUNNING"}) {
    EXPECT_FALSE(ParseSqueue(bad).ok()) << bad;
  }
}

TEST(SlurmStateTest, Sacct) {
  constexpr const char* kText =
      "42|ys_llama|COMPLETED|2026-11-29T10:00:00|2026-11-29T10:00:30|2026-11-29T11:00:00|0:0|node["
      "01-64]\n"
      "42.batch|batch|COMPLETED|2026-11-29T10:00:30|2026-11-29T10:00:30|2026-11-29T11:00:00|0:0|"
      "node01\n";
  auto j = ParseSacct(kText, "42");
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ(j->node_list, "node[01-64]");
  EXPECT_DOUBLE_EQ(*j->SubmitToStartSeconds(), 30.0);
  auto c = ParseSacct(
      "43|x|CANCELLED by 0|2026-11-29T10:00:00|None|2026-11-29T10:00:05|0:0|None assigned\n", "43");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->Ended());
  EXPECT_EQ(c->start_time, "");
  EXPECT_EQ(c->node_list, "");
  EXPECT_EQ(ParseSacct(kText, "41").status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ParseSacct("42|x|COMPLETED\n", "42").ok());
  EXPECT_FALSE(ParseSacct("42|x|COMPLETED|bad|None|None|0:0|n\n", "42").ok());
}

// Recorded from Slurm 22.05 after `scontrol update NodeName=vm State=DRAIN Reason="admin:
// maintenance x=1"`.
constexpr const char* kDrainedNode = R"(NodeName=vm Arch=x86_64 CoresPerSocket=1 
   CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=4.18
   AvailableFeatures=(null)
   Gres=(null)
   NodeAddr=vm NodeHostName=vm Version=22.05.8
   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
   Partitions=test 
   CurrentWatts=0 AveWatts=0
   Reason=admin: maintenance x=1 [root@2026-11-29T19:11:03]

)";

TEST(SlurmStateTest, ScontrolShowNode) {
  auto n = ParseScontrolNode(kDrainedNode);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(n->name, "vm");
  EXPECT_EQ(n->state, "IDLE+DRAIN");
  EXPECT_EQ(n->reason, "admin: maintenance x=1");
  EXPECT_TRUE(n->Drained());
  EXPECT_FALSE(n->Down());

  auto idle = ParseScontrolNode("NodeName=vm Arch=x86_64\n   State=IDLE ThreadsPerCore=1\n");
  ASSERT_TRUE(idle.ok());
  EXPECT_FALSE(idle->Drained());
  EXPECT_EQ(idle->reason, "");
  auto down = ParseScontrolNode(
      "NodeName=n1\n   State=DOWN*+DRAIN\n   Reason=yardstick: YS-GPU-040 gpu3: x "
      "[slurm@2026-11-29T19:11:03]\n");
  ASSERT_TRUE(down.ok());
  EXPECT_TRUE(down->Drained());
  EXPECT_TRUE(down->Down());
  EXPECT_EQ(down->reason, "yardstick: YS-GPU-040 gpu3: x");
  EXPECT_EQ(down->reason_user, "slurm");
  EXPECT_EQ(down->reason_time, "2026-11-29T19:11:03");
  // Only the last bracket is Slurm's: one typed into the reason stays part of the text.
  auto typed = ParseScontrolNode(
      "NodeName=n1 State=IDLE+DRAIN\n   Reason=yardstick: x [root@2026-01-01T00:00:00] "
      "[alice@2026-11-29T19:11:03]\n");
  ASSERT_TRUE(typed.ok());
  EXPECT_EQ(typed->reason, "yardstick: x [root@2026-01-01T00:00:00]");
  EXPECT_EQ(typed->reason_user, "alice");
  auto mixed = ParseScontrolNode("NodeName=n1 State=MIXED+DRAINING\n");
  EXPECT_TRUE(mixed->Drained());
  EXPECT_FALSE(ParseScontrolNode("NodeName=n1 State=MIXED+UNDRAINABLE\n")->Drained());
  for (const char* bad :
       {"", "Node vm not found", "NodeName=vm", "State=IDLE", "NodeName= State=IDLE"}) {
    EXPECT_FALSE(ParseScontrolNode(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace ys::slurm
