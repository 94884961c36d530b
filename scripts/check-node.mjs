// npm scripts must run on the pinned Node 24 (node_modules/.bin/node), not the machine's Node 20.
const major = Number(process.versions.node.split(".")[0])
if (major < 24) {
  console.error(`paygate needs Node >= 24 but this is ${process.version}. Run through npm (npm test, npm start), which uses the pinned node package.`)
  process.exit(1)
}
