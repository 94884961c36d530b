/** The URL of database `name` on the PostgreSQL server at `url`. */
export const databaseAt = (url: string, name: string) => {
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}
