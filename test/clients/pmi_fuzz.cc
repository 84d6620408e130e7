// Speaks the PMI wire protocols over PMI_FD by hand, as MPICH's libraries would and as they never
// should, to exercise the daemon's PMI server (pmi/simple). Not linked with any PMI library.
//   pmi_fuzz pmi2                  a whole PMI-2 job: init, fullinit, job-getid, the process
//                                  mapping, kvs-put, kvs-fence, kvs-get of the next rank's key,
//                                  finalize; prints "pmi2 rank R of N next=V mapping=M"
//   pmi_fuzz pmi2-names LOOKUP SVC PORT   PMI-2's universeSize, name-lookup of LOOKUP, then
//                                  name-publish of SVC, name-lookup, name-unpublish, name-lookup:
//                                  "pmi2 universe=U", "pmi2 lookup LOOKUP rc=R port=P value=V",
//                                  "pmi2 cycle publish=R found=P unpublish=R again=R"
//   pmi_fuzz spawn                 PMI-1 spawn of 2 copies with a pre-put key (MPI_Comm_spawn's
//                                  commands): "spawn parent R rc=0", "spawn child R port=port-of-0"
//   pmi_fuzz malformed             init, then a line that is no command
//   pmi_fuzz before-init           get_maxes before init
//   pmi_fuzz long-value            init, then a put whose value is 5000 bytes
//   pmi_fuzz missing-key           init, barrier, get of a key nobody put
//   pmi_fuzz bad-exitcode          init, then abort with exitcode=7abc (not a number)
//   pmi_fuzz random SEED COUNT     init, then COUNT valid commands, about one in 8 mutated at random
// Each mode but pmi2 waits (at most 20 s) for the DVM to end the job.
#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int fd = -1;

void send_text(const std::string& text)
{
    size_t off = 0;
    while (off < text.size()) {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n <= 0) return;  // the DVM closed it: what we wanted to see
        off += static_cast<size_t>(n);
    }
}

// What arrives within `ms`, up to a newline (v1) or as many bytes as are there.
std::string receive(int ms)
{
    std::string out;
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, ms) > 0) {
        char c;
        if (::read(fd, &c, 1) != 1) break;
        out.push_back(c);
        if (c == '\n') break;
        ms = 1000;
    }
    return out;
}

std::string v2(const std::string& payload)
{
    char length[8];
    std::snprintf(length, sizeof(length), "%-6zu", payload.size());
    return std::string(length) + payload;
}

// A PMI-2 answer: its length, then that many bytes.
std::string receive_v2()
{
    char length[7] = {};
    size_t got = 0;
    while (got < 6) {
        ssize_t n = ::read(fd, length + got, 6 - got);
        if (n <= 0) return "";
        got += static_cast<size_t>(n);
    }
    std::string body(std::strtoul(length, nullptr, 10), '\0');
    got = 0;
    while (got < body.size()) {
        ssize_t n = ::read(fd, body.data() + got, body.size() - got);
        if (n <= 0) return "";
        got += static_cast<size_t>(n);
    }
    return body;
}

void init_v1();

// The value of `key` in a v1 answer (separator ' ') or a v2 one (';', where ";;" is a ';').
std::string field(const std::string& answer, const std::string& key, char separator)
{
    size_t at = answer.find(key + "=");
    if (at == std::string::npos) return "";
    std::string value;
    for (size_t i = at + key.size() + 1; i < answer.size() && answer[i] != '\n'; ++i) {
        if (answer[i] != separator) {
            value.push_back(answer[i]);
        } else if (separator == ';' && i + 1 < answer.size() && answer[i + 1] == ';') {
            value.push_back(';');
            ++i;
        } else {
            break;
        }
    }
    return value;
}

// Init, and this job's kvsname.
std::string init_v1_kvsname()
{
    init_v1();
    send_text("cmd=get_my_kvsname\n");
    return field(receive(10000), "kvsname", ' ');
}

[[noreturn]] void wait_for_the_end()
{
    for (int i = 0; i < 200; ++i) usleep(100000);
    std::printf("pmi_fuzz: the DVM did not end the job\n");
    std::exit(2);
}

void init_v1()
{
    send_text("cmd=init pmi_version=1 pmi_subversion=1\n");
    std::string a = receive(10000);
    if (a.find("response_to_init") == std::string::npos) {
        std::printf("pmi_fuzz: no answer to init: '%s'\n", a.c_str());
        std::exit(2);
    }
}

int run_pmi2(int rank)
{
    send_text("cmd=init pmi_version=2 pmi_subversion=0\n");
    std::string a = receive(10000);
    if (field(a, "pmi_version", ' ') != "2") {
        std::printf("pmi_fuzz: PMI-2 refused: '%s'\n", a.c_str());
        return 2;
    }
    send_text(v2("cmd=fullinit;pmirank=" + std::to_string(rank) + ";threaded=FALSE;"));
    a = receive_v2();
    int size = std::atoi(field(a, "size", ';').c_str());
    send_text(v2("cmd=job-getid;"));
    std::string jobid = field(receive_v2(), "jobid", ';');
    send_text(v2("cmd=info-getjobattr;key=PMI_process_mapping;"));
    std::string mapping = field(receive_v2(), "value", ';');
    send_text(v2("cmd=kvs-put;key=k" + std::to_string(rank) + ";value=v" + std::to_string(rank) + ";;x;"));
    receive_v2();
    send_text(v2("cmd=kvs-fence;"));
    receive_v2();
    int next = (rank + 1) % size;
    send_text(v2("cmd=kvs-get;jobid=" + jobid + ";key=k" + std::to_string(next) + ";"));
    std::string got = receive_v2();
    send_text(v2("cmd=finalize;"));
    receive_v2();
    // ";;" in a value is a ';' of it: the answer encodes it again.
    std::string value = field(got, "value", ';');
    std::printf("pmi2 rank %d of %d next=%s mapping=%s\n", rank, size, value.c_str(), mapping.c_str());
    return 0;
}

// PMI-2's job attribute universeSize and its name service, as MPICH's PMI-2 client sends them.
int run_pmi2_names(int rank, const std::string& other, const std::string& service, const std::string& port)
{
    send_text("cmd=init pmi_version=2 pmi_subversion=0\n");
    receive(10000);
    send_text(v2("cmd=fullinit;pmirank=" + std::to_string(rank) + ";threaded=FALSE;"));
    receive_v2();
    send_text(v2("cmd=info-getjobattr;key=universeSize;"));
    std::printf("pmi2 universe=%s\n", field(receive_v2(), "value", ';').c_str());
    send_text(v2("cmd=name-lookup;name=" + other + ";"));
    std::string a = receive_v2();
    std::printf("pmi2 lookup %s rc=%s port=%s value=%s\n", other.c_str(), field(a, "rc", ';').c_str(),
                field(a, "port", ';').c_str(), field(a, "value", ';').c_str());
    send_text(v2("cmd=name-publish;name=" + service + ";port=" + port + ";"));
    std::string published = field(receive_v2(), "rc", ';');
    send_text(v2("cmd=name-lookup;name=" + service + ";"));
    std::string found = field(receive_v2(), "port", ';');
    send_text(v2("cmd=name-unpublish;name=" + service + ";"));
    std::string unpublished = field(receive_v2(), "rc", ';');
    send_text(v2("cmd=name-lookup;name=" + service + ";"));
    std::string again = field(receive_v2(), "rc", ';');
    send_text(v2("cmd=finalize;"));
    receive_v2();
    std::printf("pmi2 cycle publish=%s found=%s unpublish=%s again=%s\n", published.c_str(), found.c_str(),
                unpublished.c_str(), again.c_str());
    return 0;
}

// Valid commands (this job's kvsname, keys of its own) with, now and then, one mutated at random:
// the DVM serves the valid ones and ends the job at the first it refuses.
void run_random(unsigned seed, int count)
{
    std::mt19937 gen(seed);
    std::string kvs = init_v1_kvsname();
    const std::vector<std::string> valid = {
        "cmd=get_maxes", "cmd=get_appnum", "cmd=get_my_kvsname", "cmd=get_universe_size",
        "cmd=put kvsname=" + kvs + " key=a" + std::to_string(seed) + " value=b",
        "cmd=get kvsname=" + kvs + " key=PMI_process_mapping", "cmd=publish_name service=s port=p",
        "mcmd=spawn\nnprocs=1\nexecname=x\nendcmd",
    };
    const std::string junk = "= ;\n\r\tcmdkeyvalue0123456789;;==\xff";
    for (int i = 0; i < count; ++i) {
        std::string line = valid[gen() % valid.size()];
        int mutations = gen() % 8 == 0 ? static_cast<int>(1 + gen() % 3) : 0;
        for (int m = 0; m < mutations && !line.empty(); ++m) {
            size_t at = gen() % line.size();
            switch (gen() % 4) {
            case 0: line.erase(at, 1 + gen() % 5); break;
            case 1: line.insert(at, 1, junk[gen() % junk.size()]); break;
            case 2: line[at] = junk[gen() % junk.size()]; break;
            case 3: line.insert(at, std::string(gen() % 3000, 'z')); break;
            }
        }
        send_text(line + "\n");
        receive(20);
    }
}

// PMI-1 spawn by hand, as MPICH's MPI_Comm_spawn sends it: the parent spawns 2 copies of this
// program with a pre-put key; each child reads it back from its own job's kvs.
int run_spawn(int rank, const char* self)
{
    std::string kvs = init_v1_kvsname();
    if (std::getenv("PMI_SPAWNED")) {
        send_text("cmd=get kvsname=" + kvs + " key=PARENT_ROOT_PORT_NAME\n");
        std::string port = field(receive(10000), "value", ' ');
        send_text("cmd=finalize\n");
        receive(10000);
        std::printf("spawn child %d port=%s\n", rank, port.c_str());
        return 0;
    }
    send_text(std::string("mcmd=spawn\nnprocs=2\nexecname=") + self +
              "\ntotspawns=1\nspawnssofar=1\nargcnt=1\narg1=spawn\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
              "preput_val_0=port-of-" + std::to_string(rank) + "\ninfo_num=0\nendcmd\n");
    std::string answer = receive(30000);
    send_text("cmd=finalize\n");
    receive(10000);
    std::printf("spawn parent %d rc=%s\n", rank, field(answer, "rc", ' ').c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    const char* env_fd = std::getenv("PMI_FD");
    const char* env_rank = std::getenv("PMI_RANK");
    if (!env_fd || !env_rank || argc < 2) {
        std::printf("pmi_fuzz: no PMI_FD/PMI_RANK, or no mode\n");
        return 2;
    }
    fd = std::atoi(env_fd);
    int rank = std::atoi(env_rank);
    std::string mode = argv[1];
    if (mode == "pmi2") return run_pmi2(rank);
    if (mode == "spawn") return run_spawn(rank, argv[0]);
    if (mode == "pmi2-names" && argc > 4) return run_pmi2_names(rank, argv[2], argv[3], argv[4]);
    if (mode == "malformed") {
        init_v1();
        send_text("this is not a command\n");
    } else if (mode == "before-init") {
        send_text("cmd=get_maxes\n");
    } else if (mode == "long-value") {
        std::string kvs = init_v1_kvsname();
        send_text("cmd=put kvsname=" + kvs + " key=big value=" + std::string(5000, 'v') + "\n");
    } else if (mode == "missing-key") {
        std::string kvs = init_v1_kvsname();
        send_text("cmd=barrier_in\n");
        receive(10000);
        send_text("cmd=get kvsname=" + kvs + " key=never_put\n");
    } else if (mode == "bad-exitcode") {
        init_v1();
        send_text("cmd=abort exitcode=7abc\n");
    } else if (mode == "random" && argc > 3) {
        run_random(static_cast<unsigned>(std::atoi(argv[2])), std::atoi(argv[3]));
        return 0;  // the DVM may have let every command through
    } else {
        std::printf("pmi_fuzz: unknown mode %s\n", mode.c_str());
        return 2;
    }
    receive(20000);
    wait_for_the_end();
}
