import { expect, it } from 'vitest'
import { Closer } from './closer.ts'

it('await using: a Closer closes at the end of its block, last pushed first, past a failing close', async () => {
  const order: string[] = []
  {
    await using closer = new Closer()
    closer.push(() => order.push('1'))
    closer.add('2', (value) => {
      order.push(value)
      throw new Error('ignored')
    })
    closer.push(async () => order.push('3'))
    order.push('body')
  }
  expect(order).toEqual(['body', '3', '2', '1'])
})

it('strict: close() rejects with the first failure, after running every close, and then holds nothing', async () => {
  const order: string[] = []
  const closer = new Closer({ strict: true })
  closer.push(() => order.push('1'))
  closer.push(() => {
    throw new Error('second')
  })
  closer.push(() => order.push('3'))
  await expect(closer.close()).rejects.toThrow('second')
  expect(order).toEqual(['3', '1'])
  await closer.close()
  expect(order).toEqual(['3', '1'])
})
